package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.job.ScopedHistoryCases;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Redis adds to the history contract ({@link RedisExecutionLogContractTest}): streams capped
 * per job (XADD's approximate trimming keeps up to a stream node more than the cap), one prefix per
 * deployment, job names checked. Real redis-server on 127.0.0.1:6379, fresh key prefix.
 */
class RedisExecutionLogTest extends ScopedHistoryCases {
  private static final String PREFIX = RedisServers.freshPrefix();

  @BeforeAll
  static void requireRedis() {
    SharedRedis.requireLocal();
  }

  @AfterAll
  static void deleteKeys() {
    SharedRedis.deleteKeys(PREFIX);
  }

  static StoreBackend openAt(String prefix, Map<String, String> options) {
    return new RedisStoreFactory()
        .open(
            new StoreSettings(
                "redis",
                RedisLeaseStoreContractTest.URL,
                List.of(),
                null,
                null,
                prefix,
                RedisServers.TIMEOUT,
                options));
  }

  @Override
  protected StoreBackend openScoped(String scope, Map<String, String> options) {
    return openAt(scope.isEmpty() ? PREFIX : PREFIX + scope + ":", options);
  }

  @Override
  protected int capSlack() {
    return 190;
  }

  @Test
  void badArgumentsAreRejected() {
    assertThatThrownBy(() -> log.recent("bad name", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
