package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.job.ExecutionLogContract;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The history kit against the real redis-server on 127.0.0.1:6379, under a fresh key prefix. */
class RedisExecutionLogContractTest extends ExecutionLogContract {
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
    return RedisExecutionLogTest.openAt(PREFIX, Map.of());
  }
}
