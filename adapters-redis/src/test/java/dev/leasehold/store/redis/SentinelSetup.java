package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.testing.ServerAvailability;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Sentinel set-up on free loopback ports, started by the test: a master, one replica that
 * replicates <b>through a {@link HoldingRelay}</b> (so its link can be stalled), and three
 * sentinels ({@code redis-server FILE.conf --sentinel}, quorum 2, master down after 1 s).
 */
final class SentinelSetup implements AutoCloseable {
  static final String MASTER_NAME = "mymaster";

  final RedisServers.Server master;
  final RedisServers.Server replica;
  final HoldingRelay link;
  private final List<Process> sentinels = new ArrayList<>();
  private final List<Integer> sentinelPorts = new ArrayList<>();
  private final List<Path> dirs = new ArrayList<>();
  private volatile boolean forced;

  /** How long the sentinels get to elect a leader before the first one is told to fail over. */
  static final Duration ELECTION = Duration.ofSeconds(20);

  SentinelSetup() throws IOException {
    master = RedisServers.Server.with(List.of()).start();
    link = new HoldingRelay(master.port());
    replica =
        RedisServers.Server.with(
                List.of("--replicaof", "127.0.0.1", "" + link.port(), "--repl-timeout", "60"))
            .start();
    for (int i = 0; i < 3; i++) {
      startSentinel();
    }
  }

  private void startSentinel() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path dir = Files.createTempDirectory("leasehold-sentinel-");
    dirs.add(dir);
    Path conf = dir.resolve("sentinel.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "port " + port,
            "bind 127.0.0.1",
            "dir " + dir,
            "logfile " + dir.resolve("sentinel.log"),
            "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
            "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
            // the sentinels re-point a replica that follows another address than the master's
            // (the relay) once it has been so for failover-timeout ("+fix-slave-config"): at 10 s
            // that bypassed the relay mid-test and the stalled link stalled nothing; a failed
            // election is tried again after twice this, within awaitReplicaPromoted
            "sentinel failover-timeout " + MASTER_NAME + " 60000",
            "sentinel parallel-syncs " + MASTER_NAME + " 1",
            ""));
    Process p =
        new ProcessBuilder("redis-server", conf.toString(), "--sentinel")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("out.log").toFile())
            .start();
    sentinels.add(p);
    sentinelPorts.add(port);
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!ServerAvailability.listening("127.0.0.1", port)) {
      if (!p.isAlive() || System.nanoTime() > end) {
        throw new IllegalStateException("sentinel on port " + port + " did not start");
      }
      sleep(20);
    }
  }

  /** {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/0#mymaster}. */
  String url() {
    return "redis-sentinel://"
        + sentinelPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","))
        + "/0#"
        + MASTER_NAME;
  }

  StoreSettings settings(String prefix, int waitReplicas) {
    return new StoreSettings(
        "redis",
        url(),
        List.of(),
        null,
        null,
        prefix,
        Duration.ofSeconds(2),
        waitReplicas == 0 ? Map.of() : Map.of("wait-replicas", "" + waitReplicas));
  }

  /** Waits until the replica has caught up with the master (offsets equal, link up). */
  void awaitReplicaInSync() {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < end) {
      String info = SharedRedis.with(replica.url(), r -> r.info("replication"));
      String m = SharedRedis.with(master.url(), r -> r.info("replication"));
      if (!field(info, "master_port").equals("" + link.port())) {
        throw new IllegalStateException(
            "the replica no longer replicates through the relay: " + describe());
      }
      if (info.contains("master_link_status:up")
          && field(info, "slave_repl_offset").equals(field(m, "master_repl_offset"))) {
        return;
      }
      sleep(50);
    }
    throw new IllegalStateException("the replica did not catch up with the master in 60 s");
  }

  /**
   * Waits until every sentinel names the replica as the master (after a failover). All three, not
   * one: a sentinel that has not yet heard of the failover and sees the old master come back
   * (empty) would turn the promoted replica into its replica, which then drops its data in the full
   * resync; the tests restart the old master only after this returns.
   *
   * <p>An election the sentinels lose (each voted for itself) is tried again only after twice the
   * failover timeout, two minutes here; rather than wait that out, after {@link #ELECTION} without
   * a promotion the first sentinel is told to fail over on its own ({@code SENTINEL FAILOVER}, what
   * an operator would do), and asked again every few seconds while it answers that a failover is in
   * progress. The tests are about what a promotion does to claims, not about how it is agreed.
   */
  void awaitReplicaPromoted() {
    long start = System.nanoTime();
    long end = start + Duration.ofSeconds(90).toNanos();
    long nextForce = start + ELECTION.toNanos();
    String wanted = "" + replica.port();
    while (System.nanoTime() < end) {
      try {
        boolean all = true;
        for (int port : sentinelPorts) {
          List<String> addr =
              sentinel(
                  port,
                  new ValueListOutput<>(StringCodec.UTF8),
                  "get-master-addr-by-name",
                  MASTER_NAME);
          all &= addr.size() == 2 && wanted.equals(addr.get(1));
        }
        String role = SharedRedis.with(replica.url(), r -> r.info("replication"));
        if (all && role.contains("role:master")) {
          return;
        }
      } catch (RuntimeException e) {
        // a sentinel busy with the failover: ask again
      }
      if (System.nanoTime() > nextForce) {
        nextForce = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        try {
          sentinel(
              sentinelPorts.get(0), new StatusOutput<>(StringCodec.UTF8), "failover", MASTER_NAME);
          forced = true;
        } catch (RuntimeException e) {
          // INPROG: a failover is under way; NOGOODSLAVE: the replica is not yet known as fit
        }
      }
      sleep(100);
    }
    throw new IllegalStateException(
        "the sentinels did not all promote the replica in 90 s: " + describe() + sentinelLogs());
  }

  /** Whether the last promotion had to be forced because the sentinels' election failed. */
  boolean forced() {
    return forced;
  }

  private static <T> T sentinel(int port, CommandOutput<String, String, T> output, String... args) {
    return SharedRedis.with(
        "redis://127.0.0.1:" + port,
        r ->
            r.dispatch(
                CommandType.SENTINEL, output, new CommandArgs<>(StringCodec.UTF8).addValues(args)));
  }

  /** The last lines of each sentinel's log, for a failure message. */
  String sentinelLogs() {
    StringBuilder sb = new StringBuilder();
    for (Path dir : dirs) {
      sb.append("\n--- ").append(dir.getFileName()).append('\n');
      RedisServers.lastLines(dir.resolve("sentinel.log"), 15)
          .forEach(l -> sb.append(l).append('\n'));
    }
    return sb.toString();
  }

  /** Ports and roles, for a failure message. */
  String describe() {
    StringBuilder sb = new StringBuilder();
    for (RedisServers.Server s : List.of(master, replica)) {
      sb.append(s.port()).append(": ");
      try {
        String info = SharedRedis.with(s.url(), r -> r.info("replication"));
        sb.append(field(info, "role"))
            .append(" link=")
            .append(field(info, "master_link_status"))
            .append(" replicas=")
            .append(field(info, "connected_slaves"))
            .append(" master_port=")
            .append(field(info, "master_port"));
      } catch (RuntimeException e) {
        sb.append(e.getMessage());
      }
      sb.append("; ");
    }
    return sb.toString();
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return "";
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws IOException {
    sentinels.forEach(Process::destroyForcibly);
    for (Process p : sentinels) {
      try {
        p.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    link.close();
    replica.destroy();
    master.destroy();
    for (Path dir : dirs) {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }
}
