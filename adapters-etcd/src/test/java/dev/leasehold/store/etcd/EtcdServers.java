package dev.leasehold.store.etcd;

import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.testing.ServerAvailability;
import dev.leasehold.storekit.testing.TestProcesses;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Throwaway {@code etcd} processes (one member or a cluster) on free loopback ports in a temporary
 * directory, for the store's tests and the daemon's black-box tests. Members are killed with
 * SIGKILL, like a crash, and can be started again on their data directory.
 */
public final class EtcdServers implements AutoCloseable {
  public static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final Path dir;
  private final List<Member> members = new ArrayList<>();
  private final String prefix = freshPrefix();

  private EtcdServers(Path dir) {
    this.dir = dir;
  }

  /** Skips (or fails under CI=true) when etcd is not installed. */
  public static void requireBinary() {
    boolean found =
        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .anyMatch(d -> Files.isExecutable(Path.of(d, "etcd")));
    if (!found) {
      ServerAvailability.missing("etcd is not installed; run: bash .ci/services.sh");
    }
  }

  /** Starts a cluster of {@code count} members and waits until it has a leader. */
  public static EtcdServers start(int count) {
    requireBinary();
    try {
      EtcdServers cluster = new EtcdServers(Files.createTempDirectory("leasehold-etcd-"));
      for (int i = 0; i < count; i++) {
        cluster.members.add(
            new Member(
                "m" + i,
                cluster.dir.resolve("m" + i),
                TestProcesses.freePort(),
                TestProcesses.freePort()));
      }
      String initial =
          cluster.members.stream()
              .map(m -> m.name + "=http://127.0.0.1:" + m.peerPort)
              .collect(Collectors.joining(","));
      cluster.members.forEach(m -> m.start(initial));
      try {
        cluster.members.forEach(Member::awaitHealthy);
      } catch (RuntimeException e) {
        cluster.close();
        throw e;
      }
      return cluster;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start etcd", e);
    }
  }

  public static String freshPrefix() {
    return "lh-test-" + UUID.randomUUID().toString().substring(0, 8) + "/";
  }

  public Member member(int i) {
    return members.get(i);
  }

  public int size() {
    return members.size();
  }

  public List<String> urls() {
    return members.stream().map(Member::url).toList();
  }

  public String prefix() {
    return prefix;
  }

  /** Settings for {@code store.type: etcd} over every member, with this cluster's key prefix. */
  public StoreSettings settings() {
    return new StoreSettings("etcd", null, urls(), null, null, prefix, TIMEOUT, Map.of());
  }

  /** The index of the member that is the leader, as the live members say. */
  public int leader() {
    for (Member m : members) {
      if (!m.running()) {
        continue;
      }
      String status = m.post("/v3/maintenance/status", "{}");
      if (status == null) {
        continue;
      }
      String leaderId = field(status, "leader");
      for (int i = 0; i < members.size(); i++) {
        if (!members.get(i).running()) {
          continue;
        }
        String own = members.get(i).post("/v3/maintenance/status", "{}");
        if (own != null && field(own, "member_id").equals(leaderId)) {
          return i;
        }
      }
    }
    throw new IllegalStateException("no etcd member knows a live leader");
  }

  private static String field(String json, String name) {
    int at = json.indexOf("\"" + name + "\":\"");
    if (at < 0) {
      return "";
    }
    int from = at + name.length() + 4;
    return json.substring(from, json.indexOf('"', from));
  }

  @Override
  public void close() {
    members.forEach(Member::kill);
    TestProcesses.deleteTree(dir);
  }

  /** One etcd member process. */
  public static final class Member {
    private final String name;
    private final Path dataDir;
    private final int clientPort;
    private final int peerPort;
    private String initialCluster;
    private Process process;

    private Member(String name, Path dataDir, int clientPort, int peerPort) {
      this.name = name;
      this.dataDir = dataDir;
      this.clientPort = clientPort;
      this.peerPort = peerPort;
    }

    public String url() {
      return "http://127.0.0.1:" + clientPort;
    }

    public int clientPort() {
      return clientPort;
    }

    public boolean running() {
      return process != null && process.isAlive();
    }

    private void start(String initial) {
      this.initialCluster = initial;
      List<String> command =
          List.of(
              "etcd",
              "--name",
              name,
              "--data-dir",
              dataDir.toString(),
              "--listen-client-urls",
              url(),
              "--advertise-client-urls",
              url(),
              "--listen-peer-urls",
              "http://127.0.0.1:" + peerPort,
              "--initial-advertise-peer-urls",
              "http://127.0.0.1:" + peerPort,
              "--initial-cluster",
              initial,
              "--initial-cluster-token",
              "leasehold-test-" + initial.hashCode(),
              // etcd's minimum lease TTL is 1.5 election timeouts, rounded up to seconds: 600 ms
              // gives 1 s (the default 1 s gives 2 s), so expiry tests and the start-up self-check
              // (a 300 ms lease must be free within 3.3 s) wait less
              "--heartbeat-interval",
              "100",
              "--election-timeout",
              "600",
              "--auto-compaction-mode",
              "revision",
              "--auto-compaction-retention",
              "10000",
              "--log-level",
              "warn");
      try {
        process =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolveSibling(name + ".log").toFile())
                .start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start etcd", e);
      }
    }

    /** Kills the member with SIGKILL and waits until it is gone. */
    public void kill() {
      TestProcesses.kill(process);
    }

    /** Starts a killed member again on its data directory. */
    public void restart() {
      start(initialCluster);
      awaitHealthy();
    }

    private void awaitHealthy() {
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < end) {
        String health = get("/health");
        if (health != null && health.contains("\"true\"")) {
          return;
        }
        if (!process.isAlive()) {
          throw new IllegalStateException("etcd " + name + " exited; see " + dataDir + ".log");
        }
        TestProcesses.pause(100);
      }
      throw new IllegalStateException("etcd " + name + " did not become healthy");
    }

    String post(String path, String body) {
      return send(
          HttpRequest.newBuilder(URI.create(url() + path))
              .timeout(Duration.ofSeconds(2))
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build());
    }

    private String get(String path) {
      return send(
          HttpRequest.newBuilder(URI.create(url() + path))
              .timeout(Duration.ofSeconds(2))
              .GET()
              .build());
    }

    private static String send(HttpRequest request) {
      try {
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? r.body() : null;
      } catch (IOException e) {
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** The members' indexes, for tests that pick some. */
  public IntStream indexes() {
    return IntStream.range(0, members.size());
  }
}
