package dev.leasehold.bench;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.RedisStoreFactory;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.jedis4.JedisLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The Redis store on the shared server 127.0.0.1:6379 (key prefix {@code lh-bench-<run>:}), next to
 * bare Lettuce commands on one shared connection (as the store has) and ShedLock's Redis providers,
 * one per trial ({@link #shedlockOn}): on Jedis (a pool of connections, each command written and
 * read on the calling thread), and on Spring Data Redis with Lettuce, the store's own driver (one
 * shared connection, as Spring Boot configures it by default).
 */
public class RedisBench extends LeaseBench {
  static final String URL = "redis://127.0.0.1:6379";

  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisCommands<String, String> redis;

  /** ShedLock's driver in this trial: {@code jedis} or {@code lettuce} (Spring Data Redis). */
  @Param({"jedis", "lettuce"})
  public String shedlockOn;

  private JedisPool jedis;
  private LettuceConnectionFactory lettuce;
  private LockProvider shedlock;

  @Override
  protected StoreBackend open() {
    requireServer("Redis", 6379);
    client = RedisClient.create(URL);
    connection = client.connect();
    redis = connection.sync();
    if (shedlockOn.equals("jedis")) {
      JedisPoolConfig config = new JedisPoolConfig();
      config.setMaxTotal(8);
      jedis = new JedisPool(config, "127.0.0.1", 6379);
      shedlock = new JedisLockProvider(jedis, RUN);
    } else {
      lettuce = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
      lettuce.afterPropertiesSet();
      lettuce.start();
      shedlock = new RedisLockProvider(lettuce, RUN);
    }
    return new RedisStoreFactory()
        .open(
            new StoreSettings(
                "redis", URL, List.of(), null, null, RUN + ":", Duration.ofSeconds(5), Map.of()));
  }

  @Override
  protected void close() {
    try {
      ScanArgs match = ScanArgs.Builder.matches("*" + RUN + "*").limit(1000);
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = redis.scan(cursor, match);
        if (!page.getKeys().isEmpty()) {
          redis.del(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      if (jedis != null) {
        jedis.close();
      }
      if (lettuce != null) {
        lettuce.destroy();
      }
      connection.close();
      client.shutdown();
    }
  }

  /** The floor: PING. */
  @Benchmark
  public String raw_ping() {
    return redis.ping();
  }

  /** A bare lock: {@code SET key NX PX} then {@code DEL}, two round trips. */
  @Benchmark
  public boolean raw_setNxDel(Slot slot) {
    String key = slot.name + "-raw";
    expect(
        "OK".equals(redis.set(key, slot.holder, SetArgs.Builder.nx().px(TTL.toMillis()))),
        "SET NX");
    return expect(redis.del(key) == 1, "DEL");
  }

  @Benchmark
  public boolean shedlock_lockUnlock(Slot slot) {
    return shedlockLockUnlock(shedlock, slot);
  }

  @Override
  protected Optional<LockProvider> shedlock() {
    return Optional.of(shedlock);
  }
}
