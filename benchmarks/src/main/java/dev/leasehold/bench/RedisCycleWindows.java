package dev.leasehold.bench;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.RedisStoreFactory;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.jedis4.JedisLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPool;

/**
 * The Redis claim cycle in interleaved windows, one JVM, one thread, on 127.0.0.1:6379: the store's
 * claim + release, bare Lettuce {@code SET NX PX} + {@code DEL} (the driver's floor for two round
 * trips), ShedLock's lock + unlock on Spring Data Redis (Lettuce) and on Jedis. Each window runs
 * every kind for the same number of cycles, one after the other, so that the machine's load meets
 * all alike; prints the smallest and the median window per kind, in µs a cycle. Not a JMH
 * benchmark: on a loaded machine the smallest window is the steadiest figure, which JMH's mean is
 * not.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/bench-classpath.txt)" \
 *   dev.leasehold.bench.RedisCycleWindows [WINDOWS [CYCLES]]
 * </pre>
 *
 * (after {@code scripts/bench.sh} built the module and wrote the class path; defaults 10 windows of
 * 300 cycles).
 */
public final class RedisCycleWindows {
  private static final Duration TTL = Duration.ofMinutes(10);

  private RedisCycleWindows() {}

  public static void main(String[] args) throws Exception {
    int windows = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    String run = "lh-windows-" + UUID.randomUUID().toString().substring(0, 8);
    System.out.println("load average: " + Files.readString(Path.of("/proc/loadavg")).trim());
    LeaseBench.requireServer("Redis", 6379);
    StoreBackend backend =
        new RedisStoreFactory()
            .open(
                new StoreSettings(
                    "redis",
                    RedisBench.URL,
                    List.of(),
                    null,
                    null,
                    run + ":",
                    Duration.ofSeconds(5),
                    Map.of()));
    RedisClient client = RedisClient.create(RedisBench.URL);
    JedisPool pool = new JedisPool("127.0.0.1", 6379);
    LettuceConnectionFactory spring =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
    try {
      backend.ping();
      LeaseStore store = backend.leaseStore();
      RedisCommands<String, String> raw = client.connect().sync();
      spring.afterPropertiesSet();
      spring.start();
      LockProvider onLettuce = new RedisLockProvider(spring, run);
      LockProvider onJedis = new JedisLockProvider(pool, run);
      long[] firing = {1_000_000_000_000L};
      Map<String, Runnable> kinds = new LinkedHashMap<>();
      kinds.put(
          "Leasehold claim + release",
          () -> {
            Lease lease =
                LeaseBench.expect(
                    store.claim(run + "-c", Instant.ofEpochMilli(firing[0]++), "windows", TTL));
            LeaseBench.expect(store.release(lease), "release");
          });
      kinds.put(
          "Lettuce SET NX PX + DEL",
          () -> {
            LeaseBench.expect(
                "OK".equals(raw.set(run + "-r", "x", SetArgs.Builder.nx().px(TTL.toMillis()))),
                "SET NX");
            LeaseBench.expect(raw.del(run + "-r") == 1, "DEL");
          });
      kinds.put("ShedLock, Spring Data Redis (Lettuce)", () -> lockUnlock(onLettuce, run + "-s"));
      kinds.put("ShedLock, Jedis", () -> lockUnlock(onJedis, run + "-j"));
      Map<String, List<Double>> micros = new LinkedHashMap<>();
      for (int w = -2; w < windows; w++) { // two windows of warm-up
        for (Map.Entry<String, Runnable> kind : kinds.entrySet()) {
          long start = System.nanoTime();
          for (int i = 0; i < cycles; i++) {
            kind.getValue().run();
          }
          double perCycle = (System.nanoTime() - start) / 1000.0 / cycles;
          if (w >= 0) {
            micros.computeIfAbsent(kind.getKey(), k -> new ArrayList<>()).add(perCycle);
          }
        }
      }
      micros.forEach(
          (kind, values) -> {
            Collections.sort(values);
            System.out.printf(
                Locale.ROOT,
                "%-40s smallest %7.1f µs, median %7.1f µs%n",
                kind,
                values.get(0),
                values.get(values.size() / 2));
          });
      System.out.println("load average: " + Files.readString(Path.of("/proc/loadavg")).trim());
      for (String key : List.of(run + "-r", run + "-s", run + "-j")) {
        raw.del(key);
      }
      raw.keys("*" + run + "*").forEach(raw::del);
    } finally {
      spring.destroy();
      pool.close();
      client.shutdown();
      backend.close();
    }
  }

  private static void lockUnlock(LockProvider provider, String name) {
    LockConfiguration config = new LockConfiguration(ClockProvider.now(), name, TTL, Duration.ZERO);
    provider.lock(config).orElseThrow(() -> new IllegalStateException("ShedLock lock")).unlock();
  }
}
