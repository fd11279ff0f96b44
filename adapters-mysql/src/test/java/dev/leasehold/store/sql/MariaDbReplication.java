package dev.leasehold.store.sql;

import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB primary and one replica, two {@code mariadbd} processes the test starts on free
 * loopback ports in a temporary directory (the machine's MariaDB binaries; the server on 3306 is
 * not touched). The replica follows the primary by GTID, through a {@link TcpProxy} ({@link #link})
 * that can hold its traffic: a replica that lags, with its replication threads still running. With
 * {@code semiSyncTimeout} set, the primary waits for the replica's acknowledgement ({@code
 * rpl_semi_sync_master_wait_point = AFTER_SYNC}) before a commit returns, for at most that long;
 * without it, replication is asynchronous (MariaDB's default).
 *
 * <p>The data directories are copied from one made by {@code mariadb-install-db} once per test JVM.
 * Run as root, the servers run as user {@code mysql} (mariadbd refuses root).
 */
final class MariaDbReplication implements AutoCloseable {
  static final String DATABASE = "lh";
  private static final Duration START = Duration.ofSeconds(60);
  private static Path template;

  final Server primary;
  final Server replica;

  /** The replication link, from the replica to the primary. */
  private final TcpProxy link;

  private final Path dir;

  private MariaDbReplication(Path dir, Server primary, Server replica, TcpProxy link) {
    this.dir = dir;
    this.primary = primary;
    this.replica = replica;
    this.link = link;
  }

  /**
   * Starts the pair and the replication, creates {@link #DATABASE} on the primary and waits until
   * the replica has it.
   *
   * @param semiSyncTimeout {@code rpl_semi_sync_master_timeout}, or null for asynchronous
   *     replication
   */
  static MariaDbReplication start(Duration semiSyncTimeout) {
    if (!Files.isExecutable(Path.of("/usr/sbin/mariadbd"))
        || !Files.isExecutable(Path.of("/usr/bin/mariadb-install-db"))) {
      ServerAvailability.missing(
          "MariaDB's server binaries (/usr/sbin/mariadbd, mariadb-install-db) are needed:"
              + " bash .ci/services.sh installs them");
    }
    Path dir = null;
    List<Server> started = new ArrayList<>();
    TcpProxy link = null;
    try {
      dir = Files.createTempDirectory("lh-mariadb-failover-");
      ownedByServer(dir);
      List<String> primaryOptions = new ArrayList<>();
      if (semiSyncTimeout != null) {
        primaryOptions.add("--rpl-semi-sync-master-enabled=ON");
        primaryOptions.add("--rpl-semi-sync-master-wait-point=AFTER_SYNC");
        primaryOptions.add("--rpl-semi-sync-master-timeout=" + semiSyncTimeout.toMillis());
      }
      Server primary = Server.start(dir, "primary", 1, primaryOptions);
      started.add(primary);
      Server replica =
          Server.start(
              dir,
              "replica",
              2,
              List.of(
                  semiSyncTimeout != null
                      ? "--rpl-semi-sync-slave-enabled=ON"
                      : "--rpl-semi-sync-slave-enabled=OFF",
                  "--read-only=ON"));
      started.add(replica);
      link = new TcpProxy("127.0.0.1", primary.port);
      replica.execute(
          "CHANGE MASTER TO master_host = '127.0.0.1', master_port = "
              + link.port()
              + ", master_user = 'root', master_password = '', master_use_gtid = slave_pos,"
              + " master_connect_retry = 1",
          "START SLAVE");
      primary.execute("CREATE DATABASE " + DATABASE);
      MariaDbReplication pair = new MariaDbReplication(dir, primary, replica, link);
      pair.awaitReplicaInSync();
      if (semiSyncTimeout != null) {
        pair.awaitSemiSyncOn();
      }
      return pair;
    } catch (IOException e) {
      started.forEach(Server::kill);
      closeQuietly(link);
      throw new UncheckedIOException(e);
    } catch (RuntimeException | Error e) {
      started.forEach(Server::kill);
      closeQuietly(link);
      throw e;
    }
  }

  /** Waits until the replica has applied everything the primary wrote. */
  void awaitReplicaInSync() {
    String primaryPos = primary.query("SELECT @@gtid_binlog_pos");
    await(
        "the replica to apply " + primaryPos,
        () -> primaryPos.equals(replica.query("SELECT @@gtid_slave_pos")));
  }

  /** Waits until the primary counts the replica as a semi-synchronous client and waits for it. */
  private void awaitSemiSyncOn() {
    await(
        "semi-synchronous replication to be on",
        () ->
            "ON".equals(primary.status("Rpl_semi_sync_master_status"))
                && "1".equals(primary.status("Rpl_semi_sync_master_clients")));
  }

  /**
   * Waits until the replica has received (not necessarily applied) everything the primary wrote:
   * with asynchronous replication a commit returns before that.
   */
  void awaitReplicaReceived() {
    String primaryPos = primary.query("SELECT @@gtid_binlog_pos");
    await(
        "the replica to receive " + primaryPos,
        () -> primaryPos.equals(replica.slaveStatus().get("Gtid_IO_Pos")));
  }

  /** Waits until the primary has stopped waiting for the replica (its timeout passed once). */
  void awaitSemiSyncOff() {
    await(
        "the primary to turn semi-synchronous replication off",
        () -> "OFF".equals(primary.status("Rpl_semi_sync_master_status")));
  }

  /** The replica stops applying what it receives; it still receives and acknowledges it. */
  void pauseApplier() {
    replica.execute("STOP SLAVE SQL_THREAD");
  }

  /**
   * The replica receives nothing more: its link holds every byte both ways (no RST, no FIN), its
   * replication threads keep running (a replica that lags, or a link that hangs).
   */
  void stallReplica() {
    link.freeze();
  }

  /**
   * SIGKILL of the primary's process; its connections with the replica go away with it (what the
   * stalled link held is never delivered).
   */
  void killPrimary() {
    primary.kill();
    link.cut();
  }

  /**
   * Promotes the replica as an operator should: apply everything already in the relay log (what the
   * primary may have acknowledged) while the receiving thread still runs, then stop replication,
   * forget the old primary and take writes. (Stopping both replication threads first and starting
   * the applier again lost the relay log's transactions in this test's first version: with GTID,
   * MariaDB fetches the relay log again from the primary, which is gone.)
   */
  void promoteReplica() {
    replica.execute("START SLAVE SQL_THREAD");
    String received = replica.slaveStatus().get("Gtid_IO_Pos");
    if (received != null && !received.isEmpty()) {
      String waited = replica.query("SELECT MASTER_GTID_WAIT('" + received + "', 60)");
      if (!"0".equals(waited)) {
        throw new AssertionError("the replica did not apply its relay log up to " + received);
      }
    }
    promoteHastily();
  }

  /**
   * Promotes the replica without applying its relay log first: {@code RESET SLAVE ALL} deletes the
   * relay log with whatever was received and not yet applied.
   */
  void promoteHastily() {
    replica.execute("STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF");
  }

  /** The store URL on the replica (the new primary after a promotion). */
  String replicaUrl() {
    return replica.url(DATABASE);
  }

  String primaryUrl() {
    return primary.url(DATABASE);
  }

  /** The servers' state and the tails of their error logs, for a failure message. */
  String describe() {
    return primary.describe() + "\n" + replica.describe();
  }

  @Override
  public void close() {
    primary.kill();
    replica.kill();
    closeQuietly(link);
    delete(dir);
  }

  private static void closeQuietly(TcpProxy proxy) {
    if (proxy != null) {
      try {
        proxy.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  private static void await(String what, java.util.function.BooleanSupplier done) {
    long end = System.nanoTime() + START.toNanos();
    while (true) {
      try {
        if (done.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        if (System.nanoTime() > end) {
          throw e;
        }
      }
      if (System.nanoTime() > end) {
        throw new AssertionError("waited " + START.toSeconds() + " s for " + what);
      }
      sleep(100);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Run as root, mariadbd runs as {@code mysql} and must own its directories. */
  private static void ownedByServer(Path path) throws IOException {
    if (root()) {
      run(List.of("chown", "-R", "mysql", path.toString()));
    }
  }

  /** One {@code mariadb-install-db} per test JVM; each server gets a copy of its directory. */
  private static synchronized Path template() throws IOException {
    if (template == null) {
      Path dir = Files.createTempDirectory("lh-mariadb-template-");
      ownedByServer(dir);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
      List<String> command = new ArrayList<>();
      command.add("/usr/bin/mariadb-install-db");
      command.add("--no-defaults");
      if (root()) {
        command.add("--user=mysql");
      }
      command.addAll(
          List.of(
              "--datadir=" + dir.resolve("data"),
              "--auth-root-authentication-method=normal",
              "--skip-test-db",
              "--innodb-log-file-size=4M",
              "--innodb-buffer-pool-size=16M"));
      run(command);
      template = dir.resolve("data");
    }
    return template;
  }

  private static void run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", command) + " failed:\n" + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a leftover in the temporary directory
    }
  }

  /** One {@code mariadbd} process. */
  static final class Server {
    final String name;
    final int port;
    private final Path errorLog;
    private final Process process;

    private Server(String name, int port, Path errorLog, Process process) {
      this.name = name;
      this.port = port;
      this.errorLog = errorLog;
      this.process = process;
    }

    static Server start(Path dir, String name, int serverId, List<String> options)
        throws IOException {
      Path data = dir.resolve(name);
      run(List.of("cp", "-a", template().toString(), data.toString()));
      ownedByServer(data);
      int port = freePort();
      Path errorLog = dir.resolve(name + ".err");
      List<String> command = new ArrayList<>();
      command.add("/usr/sbin/mariadbd");
      command.add("--no-defaults");
      if (root()) {
        command.add("--user=mysql");
      }
      command.addAll(
          List.of(
              "--datadir=" + data,
              "--port=" + port,
              "--bind-address=127.0.0.1",
              "--socket=" + dir.resolve(name + ".sock"),
              "--pid-file=" + dir.resolve(name + ".pid"),
              "--log-error=" + errorLog,
              "--server-id=" + serverId,
              "--log-bin=" + data.resolve("binlog"),
              "--relay-log=" + data.resolve("relay"),
              "--skip-name-resolve",
              "--performance-schema=OFF",
              "--innodb-buffer-pool-size=16M",
              "--innodb-log-file-size=4M",
              "--skip-slave-start"));
      command.addAll(options);
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve(name + ".out").toFile())
              .start();
      Server server = new Server(name, port, errorLog, process);
      await(
          name + " (mariadbd on port " + port + ") to accept connections",
          () -> {
            if (!process.isAlive()) {
              throw new AssertionError(name + " exited:\n" + server.describe());
            }
            return ServerAvailability.listening("127.0.0.1", port)
                && "1".equals(server.query("SELECT 1"));
          });
      return server;
    }

    String url(String database) {
      return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    private Connection connect() throws SQLException {
      DriverManager.setLoginTimeout(10);
      return DriverManager.getConnection(
          "jdbc:mariadb://127.0.0.1:" + port + "/?connectTimeout=5000&socketTimeout=60000",
          "root",
          "");
    }

    void execute(String... statements) {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        for (String statement : statements) {
          s.execute(statement);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(name + ": " + e.getMessage(), e);
      }
    }

    /** The first column of the first row, as a string ("" for SQL NULL). */
    String query(String sql) {
      try (Connection c = connect();
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery(sql)) {
        if (!r.next()) {
          return "";
        }
        String v = r.getString(1);
        return v == null ? "" : v;
      } catch (SQLException e) {
        throw new IllegalStateException(name + ": " + e.getMessage(), e);
      }
    }

    String status(String variable) {
      try (Connection c = connect();
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + variable + "'")) {
        return r.next() ? r.getString(2) : null;
      } catch (SQLException e) {
        throw new IllegalStateException(name + ": " + e.getMessage(), e);
      }
    }

    Map<String, String> slaveStatus() {
      Map<String, String> values = new LinkedHashMap<>();
      try (Connection c = connect();
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SHOW SLAVE STATUS")) {
        if (r.next()) {
          for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
            values.put(r.getMetaData().getColumnLabel(i), r.getString(i));
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(name + ": " + e.getMessage(), e);
      }
      return values;
    }

    void kill() {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    String describe() {
      String tail;
      try {
        List<String> lines = Files.exists(errorLog) ? Files.readAllLines(errorLog) : List.of();
        tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
      } catch (IOException e) {
        tail = e.toString();
      }
      return name
          + " :"
          + port
          + (process.isAlive() ? " running" : " exited")
          + ", error log tail:\n"
          + tail;
    }

    private static int freePort() throws IOException {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      }
    }
  }
}
