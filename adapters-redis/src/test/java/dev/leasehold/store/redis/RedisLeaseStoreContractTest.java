package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract kit against the real redis-server on 127.0.0.1:6379, under a fresh key prefix. */
class RedisLeaseStoreContractTest extends LeaseStoreContract {
  static final String URL = "redis://127.0.0.1:6379";
  private static final String PREFIX = RedisServers.freshPrefix();

  @BeforeAll
  static void requireRedis() {
    SharedRedis.requireLocal();
  }

  @AfterAll
  static void deleteKeys() {
    SharedRedis.deleteKeys(PREFIX);
  }

  static StoreSettings settings(String prefix) {
    return new StoreSettings(
        "redis", URL, List.of(), null, null, prefix, RedisServers.TIMEOUT, Map.of());
  }

  @Override
  protected StoreBackend createBackend() {
    return new RedisStoreFactory().open(settings(PREFIX));
  }
}
