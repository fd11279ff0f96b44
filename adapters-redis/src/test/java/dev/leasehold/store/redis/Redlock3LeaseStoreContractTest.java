package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.store.redis.redlock.RedlockLeaseStore;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract kit against a Redlock of 3 redis-server processes started by the test. */
class Redlock3LeaseStoreContractTest extends LeaseStoreContract {
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
  protected LeaseStore createStore() {
    return RedlockLeaseStore.open(servers.redlockSettings());
  }
}
