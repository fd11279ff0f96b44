package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code validate --connect} and {@code status} say when a store cannot be reached, for every
 * store type, through the real CLI and the real drivers: one line naming the store, its host and
 * port and the cause in plain words; no pool names, no {@code <unresolved>}, no exception class
 * names, never the password; exit code 1. Each store's URL points at a port that was bound and
 * closed again (nothing listens there) or at a host that cannot exist. The command timeout is 20 s:
 * a refused connection must be reported by the first attempt, well before that.
 */
class ConnectionErrorsCliTest {
  private static final String PASSWORD = "pw-Secret-7731";
  private static final List<String> INTERNALS =
      List.of(
          "HikariPool",
          "leasehold-",
          "<unresolved>",
          "Exception",
          "request timed out",
          "cluster state",
          PASSWORD);

  @TempDir Path dir;

  private final CliHarness cli = new CliHarness();

  private record Case(String name, String store, String expected) {}

  private static List<Case> refused(int p, int p2, int p3) {
    String at = "127.0.0.1:" + p;
    String at2 = "127.0.0.1:" + p2;
    String at3 = "127.0.0.1:" + p3;
    return List.of(
        new Case(
            "mariadb",
            "  type: mariadb\n  url: jdbc:mariadb://" + at + "/test\n  username: root\n",
            "SQL store: cannot connect to MariaDB/MySQL at " + at + ": connection refused"),
        new Case(
            "postgres",
            "  type: postgres\n  url: jdbc:postgresql://" + at + "/test\n  username: postgres\n",
            "SQL store: cannot connect to PostgreSQL at " + at + ": connection refused"),
        new Case(
            "redis",
            "  type: redis\n  url: redis://" + at + "/0\n",
            "Redis store: cannot connect to Redis at " + at + "/0: connection refused"),
        new Case(
            "sentinel",
            "  type: redis\n  url: redis-sentinel://" + at + "/0#mymaster\n",
            "Redis store: cannot connect to Redis master mymaster via sentinels "
                + at
                + ": connection refused"),
        new Case(
            "redlock",
            "  type: redlock\n  urls: [redis://"
                + at
                + "/0, redis://"
                + at2
                + "/0, redis://"
                + at3
                + "/0]\n",
            "Redlock store: 0 of 3 Redis nodes answered PING, 2 needed; "
                + at
                + "/0: connection refused; "
                + at2
                + "/0: connection refused; "
                + at3
                + "/0: connection refused"),
        new Case(
            "mongo",
            "  type: mongo\n  url: mongodb://" + at + "/leasehold\n",
            "MongoDB store: cannot connect to MongoDB at " + at + ": connection refused"),
        new Case(
            "etcd",
            "  type: etcd\n  url: http://" + at + "\n",
            "etcd store: cannot connect to etcd at " + at + ": connection refused"),
        new Case(
            "zookeeper",
            "  type: zookeeper\n  url: zk://" + at + "\n",
            "ZooKeeper store: cannot connect to ZooKeeper at " + at + ": connection refused"));
  }

  private static List<Case> unknownHost() {
    String host = "no-such-host.invalid";
    return List.of(
        new Case(
            "mariadb",
            "  type: mariadb\n  url: jdbc:mariadb://" + host + ":3306/test\n  username: root\n",
            "SQL store: cannot connect to MariaDB/MySQL at " + host + ":3306: unknown host"),
        new Case(
            "postgres",
            "  type: postgres\n  url: jdbc:postgresql://" + host + "/test\n",
            "SQL store: cannot connect to PostgreSQL at " + host + ":5432: unknown host"),
        new Case(
            "redis",
            "  type: redis\n  url: redis://" + host + ":6379/0\n",
            "Redis store: cannot connect to Redis at " + host + ":6379/0: unknown host"),
        new Case(
            "mongo",
            "  type: mongo\n  url: mongodb://" + host + ":27017/leasehold\n",
            "MongoDB store: cannot connect to MongoDB at " + host + ":27017: unknown host"),
        new Case(
            "etcd",
            "  type: etcd\n  url: http://" + host + ":2379\n",
            "etcd store: cannot connect to etcd at " + host + ":2379: unknown host"),
        new Case(
            "zookeeper",
            "  type: zookeeper\n  url: zk://" + host + ":2181\n",
            "ZooKeeper store: cannot connect to ZooKeeper at " + host + ":2181: unknown host"));
  }

  @Test
  void aRefusedConnectionIsOnePlainLineAnsweredAtOnce() throws IOException {
    for (Case c : refused(closedPort(), closedPort(), closedPort())) {
      Path config = config(c);
      long start = System.nanoTime();
      CliHarness.Result validate = cli.run("validate", "--connect", "--config", config.toString());
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(validate.code()).as(c.name() + ": " + validate.err()).isEqualTo(1);
      assertPlainLine(c, validate.err());
      // the command timeout is 20 s: waiting out a pool or a server selection would show here
      assertThat(took).as(c.name() + " took").isLessThan(Duration.ofSeconds(10));

      CliHarness.Result status = cli.run("status", "--config", config.toString());
      assertThat(status.code()).as(c.name() + ": " + status.err()).isEqualTo(1);
      assertPlainLine(c, status.err());
    }
  }

  @Test
  void anUnknownHostIsNamedAsSuch() throws IOException {
    for (Case c : unknownHost()) {
      CliHarness.Result validate =
          cli.run("validate", "--connect", "--config", config(c).toString());
      assertThat(validate.code()).as(c.name() + ": " + validate.err()).isEqualTo(1);
      assertPlainLine(c, validate.err());
    }
  }

  /**
   * {@code run} does not end while the store is down: it logs a retry line per attempt carrying the
   * same plain message, for a SQL server and a Redis server with nothing listening.
   */
  @Test
  void runLogsTheSamePlainLineOnEveryRetry() throws Exception {
    for (Case c : refused(closedPort(), closedPort(), closedPort())) {
      if (!c.name().equals("mariadb") && !c.name().equals("redis")) {
        continue;
      }
      String log = runLogUntilSecondRetry(config(c));
      List<String> retries = log.lines().filter(l -> l.contains("is not reachable (")).toList();
      assertThat(retries).as(c.name() + ": " + log).hasSizeGreaterThanOrEqualTo(2);
      for (String line : retries) {
        assertThat(line).contains("WARN", c.expected() + "); retrying in ");
        for (String internal : INTERNALS) {
          assertThat(line).as(c.name()).doesNotContain(internal);
        }
      }
    }
  }

  private String runLogUntilSecondRetry(Path config) throws Exception {
    return new CliHarness()
        .runLogged(
            config,
            "INFO",
            Duration.ofSeconds(60),
            "two retry lines",
            log -> log.lines().filter(l -> l.contains("retrying in")).count() >= 2,
            () -> {});
  }

  private void assertPlainLine(Case c, String err) {
    assertThat(err.lines()).as(c.name() + ": " + err).hasSize(1);
    assertThat(err).as(c.name()).startsWith("leasehold:").contains(c.expected());
    for (String internal : INTERNALS) {
      assertThat(err).as(c.name()).doesNotContain(internal);
    }
  }

  private Path config(Case c) throws IOException {
    Path file = dir.resolve(c.name() + ".yaml");
    Files.writeString(
        file,
        "store:\n"
            + c.store()
            + (c.store().contains("username:") ? "" : "  username: lh\n")
            + "  password: "
            + PASSWORD
            + "\n  command-timeout: 20s\n"
            + "jobs:\n  - name: a\n    every: 1m\n    command: [\"true\"]\n");
    return file;
  }

  /** A port bound and closed again: nothing listens there. */
  static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
