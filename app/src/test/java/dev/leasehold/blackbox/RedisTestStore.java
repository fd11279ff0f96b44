package dev.leasehold.blackbox;

import dev.leasehold.storekit.testing.ServerAvailability;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.UUID;

/**
 * The {@code redis} store for one test: a fresh {@code store.key-prefix} on a Redis server (the
 * shared one on 6379, or one the test started); its keys are deleted afterwards (SCAN, never
 * FLUSHALL).
 */
final class RedisTestStore implements BlackBoxStore {
  private final String url;
  private final String prefix;

  private RedisTestStore(String url, String prefix) {
    this.url = url;
    this.prefix = prefix;
  }

  /** The shared server on 127.0.0.1:6379. */
  static RedisTestStore shared() {
    ServerAvailability.require(
        "Redis on 127.0.0.1:6379", "127.0.0.1", 6379, "run: bash .ci/services.sh");
    return on(6379);
  }

  /** A server on {@code 127.0.0.1:port}. */
  static RedisTestStore on(int port) {
    return on(port, freshPrefix());
  }

  /** A server on {@code 127.0.0.1:port}, under {@code prefix}. */
  static RedisTestStore on(int port, String prefix) {
    return new RedisTestStore("redis://127.0.0.1:" + port, prefix);
  }

  static String freshPrefix() {
    return "lh-bb-" + UUID.randomUUID().toString().substring(0, 8) + ":";
  }

  @Override
  public String yaml() {
    return "type: redis\nurl: " + url + "\nkey-prefix: \"" + prefix + "\"\n";
  }

  /** {@code DEL <prefix>{name}:lease}: the lease goes, the watermark and fence stay. */
  @Override
  public void stealLease(String name) {
    Long deleted = redis(c -> c.del(prefix + "{" + name + "}:lease"));
    if (deleted == null || deleted != 1) {
      throw new AssertionError("no lease key for " + name + " under " + prefix);
    }
  }

  /** {@code DEL <prefix>{name}:lease <prefix>{name}:meta}: fence and watermark go too. */
  @Override
  public void deleteLeaseRecord(String name) {
    Long deleted =
        redis(c -> c.del(prefix + "{" + name + "}:lease", prefix + "{" + name + "}:meta"));
    if (deleted == null || deleted < 1) {
      throw new AssertionError("no lease record for " + name + " under " + prefix);
    }
  }

  @Override
  public void close() {
    redis(
        c -> {
          ScanCursor cursor = ScanCursor.INITIAL;
          do {
            KeyScanCursor<String> page =
                c.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
            List<String> keys = page.getKeys();
            if (!keys.isEmpty()) {
              c.del(keys.toArray(String[]::new));
            }
            cursor = page;
          } while (!cursor.isFinished());
          return null;
        });
  }

  private <T> T redis(java.util.function.Function<RedisCommands<String, String>, T> action) {
    RedisClient client = RedisClient.create(url);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return action.apply(connection.sync());
    } finally {
      client.shutdown();
    }
  }

  @Override
  public String toString() {
    return url + " prefix " + prefix;
  }
}
