package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.core.testing.ServerAvailability;
import java.io.IOException;
import java.net.ServerSocket;
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
