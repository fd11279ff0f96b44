package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract kit against a Redlock of 5 redis-server processes started by the test. */
class Redlock5LeaseStoreContractTest extends LeaseStoreContract {
  private static RedisServers servers;

  @BeforeAll
  static void startServers() {
    servers = RedisServers.start(5, false);
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
}
