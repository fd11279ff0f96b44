package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.redlock.RedlockLeaseStore;
import dev.leasehold.storekit.testing.ServerAvailability;
import dev.leasehold.storekit.testing.TestProcesses;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Throwaway {@code redis-server} processes on free loopback ports, for Redlock and fault tests:
 * {@code redis-server --port P --save "" --appendonly no --dir <tmp>}, or with AOF ({@code
 * --appendonly yes --appendfsync always}). Killed with SIGKILL, like a crash.
 */
final class RedisServers implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final List<Server> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();
  private final String prefix = freshPrefix();

  /** Skips (or fails under CI=true) when redis-server is not installed. */
  static void requireBinary() {
    boolean found =
        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .anyMatch(dir -> Files.isExecutable(Path.of(dir, "redis-server")));
    if (!found) {
      ServerAvailability.missing("redis-server is not installed; run: bash .ci/services.sh");
    }
  }

  /** The last {@code n} lines of a server's log, for a failure message (or why there are none). */
  static List<String> lastLines(Path log, int n) {
    try {
      List<String> lines = Files.readAllLines(log);
      return lines.subList(Math.max(0, lines.size() - n), lines.size());
    } catch (IOException e) {
      return List.of("(no log: " + e + ")");
    }
  }

  static RedisServers start(int count, boolean aof) {
    requireBinary();
    RedisServers group = new RedisServers();
    for (int i = 0; i < count; i++) {
      group.servers.add(new Server(aof).start());
    }
    return group;
  }

  Server get(int i) {
    return servers.get(i);
  }

  List<String> urls() {
    return servers.stream().map(Server::url).toList();
  }

  /** Settings for a Redlock over these servers, with this group's key prefix. */
  StoreSettings redlockSettings() {
    return new StoreSettings("redlock", null, urls(), null, null, prefix, TIMEOUT, Map.of());
  }

  static String freshPrefix() {
    return "lh-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
  }

  /** A new Redlock client over these servers, closed with them. */
  RedlockLeaseStore redlock() {
    return closeWith(RedlockLeaseStore.open(redlockSettings()));
  }

  /** Closes {@code client} before the servers stop. */
  <T extends AutoCloseable> T closeWith(T client) {
    clients.add(client);
    return client;
  }

  @Override
  public void close() {
    for (AutoCloseable client : clients) {
      try {
        client.close();
      } catch (Exception e) {
        // the servers stop next anyway
      }
    }
    clients.clear();
    servers.forEach(Server::destroy);
  }

  /** One redis-server process; survives restarts on the same port and directory. */
  static final class Server {
    private final boolean aof;
    private final List<String> extra;
    private final Path dir;
    private final int port;
    private Process process;

    private Server(boolean aof) {
      this(aof, List.of());
    }

    /** A server (not yet started) with {@code extra} arguments, e.g. {@code --replicaof h p}. */
    static Server with(List<String> extra) {
      requireBinary();
      return new Server(false, extra);
    }

    private Server(boolean aof, List<String> extra) {
      this.aof = aof;
      this.extra = List.copyOf(extra);
      try {
        this.dir = Files.createTempDirectory("leasehold-redis-");
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      this.port = TestProcesses.freePort();
    }

    String url() {
      return "redis://127.0.0.1:" + port;
    }

    int port() {
      return port;
    }

    boolean alive() {
      return process != null && process.isAlive();
    }

    long pid() {
      return process.pid();
    }

    Server start() {
      List<String> command =
          new ArrayList<>(
              List.of(
                  "redis-server",
                  "--port",
                  "" + port,
                  "--bind",
                  "127.0.0.1",
                  "--save",
                  "",
                  "--dir",
                  dir.toString(),
                  "--logfile",
                  dir.resolve("redis.log").toString()));
      command.addAll(
          aof
              ? List.of("--appendonly", "yes", "--appendfsync", "always")
              : List.of("--appendonly", "no"));
      command.addAll(extra);
      try {
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start redis-server", e);
      }
      long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!ServerAvailability.listening("127.0.0.1", port)) {
        if (!process.isAlive() || System.nanoTime() > end) {
          throw new IllegalStateException(
              "redis-server on port " + port + " did not start: " + logTail());
        }
        TestProcesses.pause(20);
      }
      return this;
    }

    /** The server's last log lines, for a failure message. */
    private String logTail() {
      return String.join(" | ", lastLines(dir.resolve("redis.log"), 3));
    }

    /** SIGKILL: a crash, nothing flushed beyond what the server already wrote. */
    void kill() {
      TestProcesses.kill(process);
    }

    void restart() {
      kill();
      start();
    }

    void signal(String signal) {
      try {
        new ProcessBuilder("kill", "-" + signal, "" + process.pid()).start().waitFor();
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }

    void destroy() {
      if (process != null) {
        signal("CONT");
        kill();
      }
      TestProcesses.deleteTree(dir);
    }
  }
}
