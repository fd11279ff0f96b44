package dev.leasehold.store.redis;

import dev.leasehold.storekit.testing.ServerAvailability;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.function.Function;

/** Direct commands on a Redis server, for test set-up and clean-up only. */
final class SharedRedis {
  private SharedRedis() {}

  /** Skips, or fails under CI=true, unless the shared Redis on 127.0.0.1:6379 is up. */
  static void requireLocal() {
    ServerAvailability.require(
        "Redis on 127.0.0.1:6379", "127.0.0.1", 6379, "run: bash .ci/services.sh");
  }

  static <T> T with(String url, Function<RedisCommands<String, String>, T> commands) {
    RedisClient client = RedisClient.create(url);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return commands.apply(connection.sync());
    } finally {
      client.shutdown();
    }
  }

  /** Deletes this test class's keys on the shared server (never FLUSHALL). */
  static void deleteKeys(String prefix) {
    with(
        RedisLeaseStoreContractTest.URL,
        redis -> {
          io.lettuce.core.ScanIterator.scan(
                  redis, io.lettuce.core.ScanArgs.Builder.matches(prefix + "*").limit(500))
              .forEachRemaining(redis::del);
          return null;
        });
  }
}
