package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.storekit.lease.DeletedRecordCases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The deleted-record cases against the real redis-server on 127.0.0.1:6379: the operator deletes
 * the lease key and the meta hash ({@code DEL <prefix>{JOB}:lease <prefix>{JOB}:meta}, fence and
 * watermark with them); the high-water key {@code <prefix>{JOB}:fence} stays.
 */
class RedisDeletedRecordTest extends DeletedRecordCases {
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
  protected StoreBackend createBackend() {
    return new RedisStoreFactory().open(RedisLeaseStoreContractTest.settings(PREFIX));
  }

  @Override
  protected void deleteRecordByHand(String name) {
    delete(RedisLeaseStoreContractTest.URL, PREFIX, name);
  }

  /** {@code DEL} of the lease key and meta hash of {@code name} on the server at {@code url}. */
  static void delete(String url, String prefix, String name) {
    LeaseKeys keys = LeaseKeys.of(prefix);
    long deleted = SharedRedis.with(url, r -> r.del(keys.lease(name)[0], keys.meta(name)));
    if (deleted < 1) {
      throw new AssertionError("no lease record of " + name + " on " + url);
    }
  }
}
