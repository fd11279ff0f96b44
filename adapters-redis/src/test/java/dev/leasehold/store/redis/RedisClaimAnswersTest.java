package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Claim answers and batches on the shared redis-server (127.0.0.1:6379), fresh key prefix. */
class RedisClaimAnswersTest extends ClaimAnswersContract {
  private static final String PREFIX = RedisServers.freshPrefix();

  @BeforeAll
  static void requireRedis() {
    SharedRedis.requireLocal();
  }

  @AfterAll
  static void deleteKeys() {
    SharedRedis.deleteKeys(PREFIX);
  }

  @Override
  LeaseStore open() {
    return RedisLeaseStore.open(RedisLeaseStoreContractTest.settings(PREFIX));
  }
}
