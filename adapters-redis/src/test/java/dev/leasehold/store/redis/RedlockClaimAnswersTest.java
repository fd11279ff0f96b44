package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.store.redis.redlock.RedlockLeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Claim answers and batches on a Redlock of 3 private redis-server processes. */
class RedlockClaimAnswersTest extends ClaimAnswersContract {
  private static RedisServers servers;

  @BeforeAll
  static void startServers() {
    servers = RedisServers.start(3, false);
  }

  @AfterAll
  static void stopServers() {
    if (servers != null) {
      servers.close();
    }
  }

  @Override
  LeaseStore open() {
    return RedlockLeaseStore.open(servers.redlockSettings());
  }
}
