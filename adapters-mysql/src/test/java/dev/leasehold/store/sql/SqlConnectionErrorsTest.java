package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What opening the SQL store says when it cannot connect, against real servers and real closed
 * ports: which database, which host and port (or file), the cause in plain words; never the pool's
 * internals or the password. A refused connection is reported by the first attempt, not after the
 * pool's connection timeout (set long here, so that waiting it out would show).
 */
class SqlConnectionErrorsTest {
  private static final String HOW_TO_START = "start it with: bash .ci/services.sh";

  /** Longer than any answer here should take: a test that waited it out fails its bound. */
  private static final Duration LONG_TIMEOUT = Duration.ofSeconds(20);

  private static final List<String> INTERNALS =
      List.of("HikariPool", "leasehold-", "<unresolved>", "Exception", "request timed out");

  @Test
  void aPortWithNothingListeningIsRefusedAtOnceOnMariaDbAndPostgres() throws IOException {
    int port = freePort();
    for (String url :
        List.of(
            "jdbc:mariadb://127.0.0.1:" + port + "/test",
            "jdbc:mysql://127.0.0.1:" + port + "/test",
            "jdbc:postgresql://127.0.0.1:" + port + "/test")) {
      String type = url.startsWith("jdbc:postgresql") ? "postgres" : "mariadb";
      long start = System.nanoTime();
      String message = failure(settings(type, url, "root", "s3cret-pw"));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(message)
          .startsWith("SQL store: cannot connect to ")
          .endsWith("at 127.0.0.1:" + port + ": connection refused");
      assertPlain(message, "s3cret-pw");
      assertThat(took).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void aPasswordWithAtAndColonInUserInfoLeavesNoPieceInTheError() throws IOException {
    int port = freePort();
    String password = "Pw@Ab:Cd3f@Gh";
    for (String url :
        List.of(
            "jdbc:mariadb://lh:" + password + "@127.0.0.1:" + port + "/test",
            "jdbc:postgresql://lh:" + password + "@127.0.0.1:" + port + "/test")) {
      String type = url.startsWith("jdbc:postgresql") ? "postgres" : "mariadb";
      String message = failure(settings(type, url, null, null));

      assertThat(message).contains("at 127.0.0.1:" + port + ": ");
      for (String piece : List.of("Pw", "Ab", "Cd3f", "Gh", "pw", "ab", "cd3f", "gh")) {
        assertThat(message)
            .as(piece)
            .doesNotContainPattern("(?<![A-Za-z0-9])" + piece + "(?![A-Za-z0-9])");
      }
    }
  }

  @Test
  void anUnknownHostIsNamed() {
    for (String url :
        List.of(
            "jdbc:mariadb://no-such-host.invalid:3306/test",
            "jdbc:postgresql://no-such-host.invalid/test")) {
      String type = url.startsWith("jdbc:postgresql") ? "postgres" : "mariadb";
      String message = failure(settings(type, url, "root", null));
      String port = type.equals("postgres") ? "5432" : "3306";
      assertThat(message).endsWith("at no-such-host.invalid:" + port + ": unknown host");
      assertPlain(message, null);
    }
  }

  @Test
  void aWrongPasswordOnMariaDbIsAnAuthenticationFailure() throws Exception {
    ServerAvailability.require("MariaDB on 127.0.0.1:3306", "127.0.0.1", 3306, HOW_TO_START);
    try (Connection c =
            DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/test", "root", null);
        Statement s = c.createStatement()) {
      s.execute("CREATE USER IF NOT EXISTS 'lh_pw_test'@'%' IDENTIFIED BY 'right-pw-123'");
      s.execute("CREATE USER IF NOT EXISTS 'lh_pw_test'@'localhost' IDENTIFIED BY 'right-pw-123'");
    }
    String message =
        failure(
            settings(
                "mariadb", "jdbc:mariadb://127.0.0.1:3306/test", "lh_pw_test", "wrong-pw-456"));
    assertThat(message)
        .isEqualTo(
            "SQL store: cannot connect to MariaDB/MySQL at 127.0.0.1:3306: authentication failed");
    assertPlain(message, "wrong-pw-456");
  }

  @Test
  void aMissingDatabaseOnPostgresIsNamed() {
    ServerAvailability.require("PostgreSQL on 127.0.0.1:5432", "127.0.0.1", 5432, HOW_TO_START);
    String message =
        failure(
            settings(
                "postgres",
                "jdbc:postgresql://127.0.0.1:5432/no_such_database_lh",
                "postgres",
                "any-pw-456"));
    assertThat(message)
        .isEqualTo(
            "SQL store: cannot connect to PostgreSQL at 127.0.0.1:5432: database does not exist");
    assertPlain(message, "any-pw-456");
  }

  /**
   * The shared PostgreSQL trusts local logins, so a private server is started for this test: its
   * own data directory, initialised with password authentication (scram-sha-256), run as the {@code
   * postgres} user on a free port. The right password opens the store; a wrong one is an
   * authentication failure.
   */
  @Test
  void aWrongPasswordOnPostgresIsAnAuthenticationFailure() throws Exception {
    Path bin = postgresBin();
    boolean root = "root".equals(System.getProperty("user.name"));
    if (bin == null || !root) {
      String why = "a private PostgreSQL needs initdb and root (to run it as postgres)";
      if (ServerAvailability.inCi()) {
        org.junit.jupiter.api.Assertions.fail(why + " (CI=true)");
      }
      org.junit.jupiter.api.Assumptions.abort(why);
    }
    Path dir = Files.createTempDirectory("leasehold-pg-");
    Path data = dir.resolve("data");
    Path pwfile = dir.resolve("pw");
    Files.writeString(pwfile, "right-pw-123\n");
    var owner = dir.getFileSystem().getUserPrincipalLookupService();
    for (Path p : List.of(dir, pwfile)) {
      Files.setOwner(p, owner.lookupPrincipalByName("postgres"));
    }
    int port = freePort();
    Process server = null;
    try {
      exec(
          "runuser",
          "-u",
          "postgres",
          "--",
          bin.resolve("initdb").toString(),
          "-D",
          data.toString(),
          "-U",
          "lh_admin",
          "--auth=scram-sha-256",
          "--pwfile=" + pwfile);
      server =
          new ProcessBuilder(
                  "runuser",
                  "-u",
                  "postgres",
                  "--",
                  bin.resolve("postgres").toString(),
                  "-D",
                  data.toString(),
                  "-p",
                  Integer.toString(port),
                  "-k",
                  dir.toString(),
                  "-c",
                  "listen_addresses=127.0.0.1")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("server.log").toFile())
              .start();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!ServerAvailability.listening("127.0.0.1", port)) {
        assertThat(server.isAlive()).as("private PostgreSQL running").isTrue();
        assertThat(System.nanoTime()).as("private PostgreSQL listening").isLessThan(deadline);
        Thread.sleep(100);
      }
      String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
      // listening comes before accepting: "the database system is starting up" until recovery ends
      while (true) {
        try {
          new SqlStoreFactory().open(settings("postgres", url, "lh_admin", "right-pw-123")).close();
          break;
        } catch (dev.leasehold.core.lease.StoreUnreachableException e) {
          assertThat(e.getMessage()).as("private PostgreSQL starting").contains("starting up");
          assertThat(System.nanoTime()).as("private PostgreSQL accepting").isLessThan(deadline);
          Thread.sleep(200);
        }
      }

      String message = failure(settings("postgres", url, "lh_admin", "wrong-pw-456"));
      assertThat(message)
          .isEqualTo(
              "SQL store: cannot connect to PostgreSQL at 127.0.0.1:"
                  + port
                  + ": authentication failed");
      assertPlain(message, "wrong-pw-456");
    } finally {
      if (server != null) {
        server.destroy();
        server.waitFor();
      }
      exec("rm", "-rf", dir.toString());
    }
  }

  private static Path postgresBin() throws IOException {
    Path lib = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(lib)) {
      return null;
    }
    try (var versions = Files.list(lib)) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")))
          .findFirst()
          .orElse(null);
    }
  }

  private static void exec(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", command) + ": " + out).isZero();
  }

  @Test
  void anH2FileHeldByAnotherProcessIsNamedAsLocked() throws Exception {
    Path dir = Files.createTempDirectory("leasehold-h2-locked-");
    Path file = dir.resolve("lh");
    // AUTO_SERVER off: a second opener cannot share the file and must say it is locked
    String url = "jdbc:h2:file:" + file + ";AUTO_SERVER=FALSE";
    Process holder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                H2Holder.class.getName(),
                url)
            .redirectErrorStream(true)
            .start();
    try {
      assertThat(
              new String(
                  holder.getInputStream().readNBytes(5), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo("open\n".substring(0, 5));
      String message = failure(settings("h2", url, null, null));
      assertThat(message)
          .isEqualTo(
              "SQL store: cannot open H2 file "
                  + file.toAbsolutePath()
                  + ": database file locked by another process (waited 30s)");
    } finally {
      holder.destroy();
      holder.waitFor();
    }
  }

  private static void assertPlain(String message, String password) {
    for (String internal : INTERNALS) {
      assertThat(message).doesNotContain(internal);
    }
    if (password != null) {
      assertThat(message).doesNotContain(password);
    }
    assertThat(message.lines()).hasSize(1);
  }

  private static String failure(StoreSettings settings) {
    Throwable thrown = catchThrowable(() -> new SqlStoreFactory().open(settings).close());
    assertThat(thrown).isInstanceOf(StoreUnreachableException.class);
    return thrown.getMessage();
  }

  private static StoreSettings settings(String type, String url, String user, String password) {
    return new StoreSettings(type, url, List.of(), user, password, null, LONG_TIMEOUT, Map.of());
  }

  /** A port that was free a moment ago: bound, then closed, so nothing listens there. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
