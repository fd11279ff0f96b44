package dev.leasehold.blackbox.servers;

import dev.leasehold.app.testing.Poll;
import dev.leasehold.blackbox.BlackBox;
import dev.leasehold.blackbox.Proc;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} of the test's own (never the shared one), on a free loopback port, with
 * AOF ({@code appendfsync always}) in a directory under the test's folder, so it can be killed and
 * started again on the same port and data. Never runs under libfaketime (it crashes there).
 */
public final class RedisServerProcess {
  private final BlackBox box;
  private final String name;
  private final int port;
  private final Path dir;
  private Proc proc;

  private RedisServerProcess(BlackBox box, String name, int port, Path dir) {
    this.box = box;
    this.name = name;
    this.port = port;
    this.dir = dir;
  }

  /** Starts a server; fails under CI when {@code redis-server} is missing, else skips. */
  public static RedisServerProcess start(BlackBox box, String name) {
    if (!Files.isExecutable(Path.of("/usr/bin/redis-server"))) {
      String message = "redis-server is not installed; run: bash .ci/services.sh";
      if (ServerAvailability.inCi()) {
        Assertions.fail(message);
      }
      Assumptions.abort(message);
    }
    Path dir = box.dir().resolve(name + "-data");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    RedisServerProcess server = new RedisServerProcess(box, name, FreePort.pick(), dir);
    server.start();
    return server;
  }

  /** Starts (again) on the same port and directory, and waits until it accepts connections. */
  public void start() {
    proc =
        box.start(
            name,
            List.of(
                "redis-server",
                "--port",
                "" + port,
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                ""),
            Map.of());
    Poll.until(
        name + " on port " + port,
        Duration.ofSeconds(30),
        () -> {
          if (!proc.isAlive()) {
            throw new AssertionError(name + " exited:\n" + proc.tail(20));
          }
          return ServerAvailability.listening("127.0.0.1", port);
        });
  }

  /** SIGKILL: a crash; with {@code appendfsync always} every acknowledged write is in the AOF. */
  public void kill() {
    proc.killGroup();
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }
}
