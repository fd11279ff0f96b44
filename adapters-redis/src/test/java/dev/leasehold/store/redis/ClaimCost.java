package dev.leasehold.store.redis;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreSettings;
import io.lettuce.core.ScriptOutputType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.jedis4.JedisLockProvider;
import redis.clients.jedis.JedisPool;

/**
 * A measurement run by hand (not a test; see docs/stores/redis.md, "Cost per claim"): the Redis
 * store next to ShedLock's Jedis provider on one private {@code redis-server}, in one run, in
 * interleaved windows so that the machine's load hits both alike.
 *
 * <ol>
 *   <li>claim cycle, one thread: Leasehold claim + release of a fresh firing, against ShedLock lock
 *       + unlock;
 *   <li>1,000 names due at one instant: Leasehold {@code claimAll}, against ShedLock locking the
 *       1,000 names one by one (and Leasehold one by one, for reference); releases untimed;
 *   <li>the server's own cost per call ({@code INFO commandstats}): the claim script now, the
 *       previous claim script, and ShedLock's {@code SET NX PX}.
 * </ol>
 *
 * <pre>
 * mvn -q -o -pl adapters-redis -am test-compile dependency:build-classpath \
 *   -Dmdep.includeScope=test -Dmdep.outputFile=target/cp.txt
 * java -cp adapters-redis/target/test-classes:adapters-redis/target/classes:$(cat \
 *   adapters-redis/target/cp.txt) dev.leasehold.store.redis.ClaimCost
 * </pre>
 */
public final class ClaimCost {
  private static final Duration TTL = Duration.ofMinutes(10);
  private static final int WINDOWS = 10;
  private static final int CYCLES = 2000;
  private static final int BURST = 1000;
  private static final int ROUNDS = 12;

  /** The claim script before this change, for its server cost only. */
  private static final String OLD_CLAIM =
      """
      if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 'held'} end
      local last = redis.call('HGET', KEYS[2], 'last_fire')
      if last and tonumber(last) >= tonumber(ARGV[3]) then return {0, 'fired'} end
      local fence = math.max((tonumber(redis.call('HGET', KEYS[2], 'fence')) or 0) + 1, tonumber(ARGV[5]))
      local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      redis.call('HSET', KEYS[2], 'fence', fence, 'last_fire', ARGV[3], 'holder', ARGV[4], 'lease_until', now + ARGV[2])
      return {1, fence, now, last or ''}
      """;

  private ClaimCost() {}

  public static void main(String[] args) throws Exception {
    System.out.println("load at start: " + Files.readString(Path.of("/proc/loadavg")).trim());
    try (RedisServers servers = RedisServers.start(1, false)) {
      String url = servers.get(0).url();
      StoreSettings settings =
          new StoreSettings(
              "redis", url, List.of(), null, null, "lh-cost:", Duration.ofSeconds(5), Map.of());
      try (LeaseStore store = RedisLeaseStore.open(settings);
          JedisPool pool = new JedisPool("127.0.0.1", servers.get(0).port())) {
        JedisLockProvider shedlock = new JedisLockProvider(pool, "cost");
        long[] firing = {1_000_000_000_000L};
        LongSupplier lh =
            () -> {
              Lease l =
                  store
                      .claim("cycle", Instant.ofEpochMilli(firing[0]++), "node-a", TTL)
                      .orElseThrow();
              if (!store.release(l)) {
                throw new IllegalStateException("release refused");
              }
              return 0;
            };
        LongSupplier shed =
            () -> {
              SimpleLock lock =
                  shedlock
                      .lock(new LockConfiguration(ClockProvider.now(), "cycle", TTL, Duration.ZERO))
                      .orElseThrow();
              lock.unlock();
              return 0;
            };
        io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(url);
        var rawConnection = raw.connect();
        var rawAsync = rawConnection.async();
        LongSupplier lettuce =
            () -> {
              try {
                rawAsync
                    .set("raw-cycle", "x", io.lettuce.core.SetArgs.Builder.nx().px(600_000))
                    .get();
                rawAsync.del("raw-cycle").get();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
              return 0;
            };
        for (int i = 0; i < 5000; i++) {
          lh.getAsLong();
          shed.getAsLong();
          lettuce.getAsLong();
        }
        LongSupplier[] kinds = {lh, shed, lettuce};
        double[][] us = new double[3][WINDOWS];
        for (int w = 0; w < WINDOWS; w++) {
          for (int j = 0; j < 3; j++) {
            int kind = (w + j) % 3;
            us[kind][w] = window(kinds[kind]);
          }
        }
        double lhMedian = median(us[0]);
        double shedMedian = median(us[1]);
        System.out.printf(
            "claim cycle, 1 thread: Leasehold %.1f us, ShedLock %.1f us per cycle:"
                + " Leasehold at %.2f x ShedLock's throughput; bare Lettuce SET NX PX + DEL"
                + " (the floor of a Lettuce client) %.1f us%n",
            lhMedian, shedMedian, shedMedian / lhMedian, median(us[2]));
        rawConnection.close();
        raw.shutdown();

        double[] batch = new double[ROUNDS];
        double[] single = new double[ROUNDS];
        double[] shedBurst = new double[ROUNDS];
        for (int r = -2; r < ROUNDS; r++) {
          Instant due = Instant.ofEpochMilli(2_000_000_000_000L + r * 60_000L + 120_000L);
          double b = burstBatch(store, due);
          double s = burstShedLock(shedlock, r);
          double o = burstOneByOne(store, due);
          if (r >= 0) {
            batch[r] = b;
            shedBurst[r] = s;
            single[r] = o;
          }
        }
        System.out.printf(
            "%d names due at one instant: Leasehold claimAll %.1f ms, one by one %.1f ms,"
                + " ShedLock one by one %.1f ms: claimAll at %.3f x ShedLock's time%n",
            BURST,
            median(batch),
            median(single),
            median(shedBurst),
            median(batch) / median(shedBurst));

        serverCost(url, store, shedlock);
      }
      waitReplicasCost(servers);
    }
    System.out.println("load at end: " + Files.readString(Path.of("/proc/loadavg")).trim());
  }

  /** Claim + release with wait-replicas 1 against 0, on the same master with one replica. */
  private static void waitReplicasCost(RedisServers servers) throws Exception {
    RedisServers.Server replica =
        RedisServers.Server.with(List.of("--replicaof", "127.0.0.1", "" + servers.get(0).port()))
            .start();
    try {
      long end = System.nanoTime() + 30_000_000_000L;
      while (!SharedRedis.with(replica.url(), r -> r.info("replication"))
          .contains("master_link_status:up")) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("replica did not connect");
        }
        Thread.sleep(50);
      }
      String url = servers.get(0).url();
      LeaseStore plain =
          RedisLeaseStore.open(
              new StoreSettings(
                  "redis", url, List.of(), null, null, "lh-w0:", Duration.ofSeconds(5), Map.of()));
      LeaseStore waiting =
          RedisLeaseStore.open(
              new StoreSettings(
                  "redis",
                  url,
                  List.of(),
                  null,
                  null,
                  "lh-w1:",
                  Duration.ofSeconds(5),
                  Map.of("wait-replicas", "1")));
      try (plain;
          waiting) {
        long[] firing = {1_000_000_000_000L};
        LongSupplier p = () -> cycle(plain, firing);
        LongSupplier w = () -> cycle(waiting, firing);
        for (int i = 0; i < 3000; i++) {
          p.getAsLong();
          w.getAsLong();
        }
        double[] pu = new double[WINDOWS];
        double[] wu = new double[WINDOWS];
        for (int i = 0; i < WINDOWS; i++) {
          boolean first = i % 2 == 0;
          double a = window(first ? p : w);
          double b = window(first ? w : p);
          pu[i] = first ? a : b;
          wu[i] = first ? b : a;
        }
        System.out.printf(
            "claim cycle with one replica: wait-replicas 0 %.1f us, wait-replicas 1 %.1f us"
                + " (%.2f x)%n",
            median(pu), median(wu), median(wu) / median(pu));
      }
    } finally {
      replica.destroy();
    }
  }

  private static long cycle(LeaseStore store, long[] firing) {
    Lease l = store.claim("cycle", Instant.ofEpochMilli(firing[0]++), "node-a", TTL).orElseThrow();
    if (!store.release(l)) {
      throw new IllegalStateException("release refused");
    }
    return 0;
  }

  private static double window(LongSupplier cycle) {
    long start = System.nanoTime();
    for (int i = 0; i < CYCLES; i++) {
      cycle.getAsLong();
    }
    return (System.nanoTime() - start) / 1000.0 / CYCLES;
  }

  private static double burstBatch(LeaseStore store, Instant due) {
    List<ClaimRequest> requests = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      requests.add(new ClaimRequest("burst-" + i, due, "node-a", TTL));
    }
    long start = System.nanoTime();
    List<ClaimResult> results = store.claimAll(requests);
    double ms = (System.nanoTime() - start) / 1e6;
    for (ClaimResult r : results) {
      store.release(r.leaseIfWon().orElseThrow());
    }
    return ms;
  }

  private static double burstOneByOne(LeaseStore store, Instant due) {
    Instant later = due.plusSeconds(30);
    List<Lease> leases = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < BURST; i++) {
      leases.add(store.claim("burst-" + i, later, "node-a", TTL).orElseThrow());
    }
    double ms = (System.nanoTime() - start) / 1e6;
    leases.forEach(store::release);
    return ms;
  }

  private static double burstShedLock(JedisLockProvider shedlock, int round) {
    List<SimpleLock> locks = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < BURST; i++) {
      Optional<SimpleLock> lock =
          shedlock.lock(
              new LockConfiguration(ClockProvider.now(), "burst-" + i, TTL, Duration.ZERO));
      locks.add(lock.orElseThrow());
    }
    double ms = (System.nanoTime() - start) / 1e6;
    locks.forEach(SimpleLock::unlock);
    return ms;
  }

  /** Server microseconds per call, from INFO commandstats after 20,000 calls of each kind. */
  private static void serverCost(String url, LeaseStore store, JedisLockProvider shedlock) {
    int n = 20_000;
    SharedRedis.with(
        url,
        redis -> {
          redis.configResetstat();
          for (int i = 0; i < n; i++) {
            store.claim("cost-new-" + i, Instant.ofEpochMilli(1_000_000_000_000L), "node-a", TTL);
          }
          double now = usecPerCall(redis.info("commandstats"), "evalsha");
          redis.configResetstat();
          String sha = redis.scriptLoad(OLD_CLAIM);
          for (int i = 0; i < n; i++) {
            redis.<List<Object>>evalsha(
                sha,
                ScriptOutputType.MULTI,
                new String[] {
                  "lh-cost:{cost-old-" + i + "}:lease", "lh-cost:{cost-old-" + i + "}:meta"
                },
                "token-" + i,
                "600000",
                "1000000000000",
                "node-a",
                "0");
          }
          double old = usecPerCall(redis.info("commandstats"), "evalsha");
          redis.configResetstat();
          for (int i = 0; i < n; i++) {
            shedlock.lock(
                new LockConfiguration(ClockProvider.now(), "cost-shed-" + i, TTL, Duration.ZERO));
          }
          double set = usecPerCall(redis.info("commandstats"), "set");
          redis.configResetstat();
          List<ClaimRequest> batch = new ArrayList<>();
          for (int i = 0; i < BURST; i++) {
            batch.add(
                new ClaimRequest(
                    "cost-batch-" + i, Instant.ofEpochMilli(1_000_000_000_000L), "node-a", TTL));
          }
          long t0 = System.nanoTime();
          store.claimAll(batch);
          double wall = (System.nanoTime() - t0) / 1e6;
          String stats = redis.info("commandstats");
          System.out.printf(
              "one claimAll of %d fresh names: %.1f ms on the client, the server's scripts"
                  + " %.1f us per call (%s)%n",
              BURST, wall, usecPerCall(stats, "evalsha"), line(stats, "evalsha"));
          System.out.printf(
              "server cost per call: claim script %.2f us (previous script %.2f us),"
                  + " ShedLock's SET NX PX %.2f us%n",
              now, old, set);
          return null;
        });
  }

  private static double usecPerCall(String info, String command) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        for (String part : line.substring(line.indexOf(':') + 1).split(",")) {
          if (part.startsWith("usec_per_call=")) {
            return Double.parseDouble(part.substring("usec_per_call=".length()));
          }
        }
      }
    }
    return Double.NaN;
  }

  private static String line(String info, String command) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        return line;
      }
    }
    return "";
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
