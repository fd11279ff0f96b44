package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.DeletedRecordCases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The deleted-record cases on a Redlock of 3 redis-server processes started by the test: the
 * operator deletes the lease key and the meta hash on every node ({@code DEL} with redis-cli on
 * each); each node's high-water key stays.
 */
class RedlockDeletedRecordTest extends DeletedRecordCases {
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
  protected StoreBackend createBackend() {
    return new RedisStoreFactory().open(servers.redlockSettings());
  }

  @Override
  protected void deleteRecordByHand(String name) {
    for (String url : servers.urls()) {
      RedisDeletedRecordTest.delete(url, servers.redlockSettings().keyPrefix(), name);
    }
  }
}
