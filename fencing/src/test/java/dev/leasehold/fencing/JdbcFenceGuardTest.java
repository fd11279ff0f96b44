package dev.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The guard on the three databases it supports (H2 in memory, the machine's MariaDB and
 * PostgreSQL), each test on tables of its own: a stale writer is refused and its write rolled back,
 * also when it raced a newer writer that had not committed yet.
 */
class JdbcFenceGuardTest {
  private final String id = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private final String fences = "fence_" + id;
  private final String exports = "export_" + id;
  private final JdbcFenceGuard guard = JdbcFenceGuard.onTable(fences);
  private final String h2 = "jdbc:h2:mem:fence-" + id + ";DB_CLOSE_DELAY=-1";

  private Connection connect(String db) throws SQLException {
    return switch (db) {
      case "h2" -> DriverManager.getConnection(h2);
      case "mariadb" ->
          DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/test", "root", "");
      case "postgres" ->
          DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
      default -> throw new IllegalArgumentException(db);
    };
  }

  private void setUp(Connection c) throws SQLException {
    guard.createTable(c);
    guard.createTable(c); // idempotent
    try (Statement sql = c.createStatement()) {
      sql.execute("CREATE TABLE " + exports + " (fence BIGINT NOT NULL, body VARCHAR(100))");
    }
  }

  private void tearDown(Connection c) throws SQLException {
    try (Statement sql = c.createStatement()) {
      sql.execute("DROP TABLE " + exports);
      sql.execute("DROP TABLE " + fences);
    }
  }

  /** One writer's transaction: the guard, then the write, then commit; a stale one rolls back. */
  private void write(Connection c, long fence, String body) throws SQLException {
    c.setAutoCommit(false);
    try {
      guard.check(c, "nightly-export", fence);
      try (PreparedStatement sql =
          c.prepareStatement("INSERT INTO " + exports + " (fence, body) VALUES (?, ?)")) {
        sql.setLong(1, fence);
        sql.setString(2, body);
        sql.executeUpdate();
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private String bodies(Connection c) throws SQLException {
    StringBuilder out = new StringBuilder();
    try (Statement sql = c.createStatement();
        ResultSet rows =
            sql.executeQuery("SELECT body FROM " + exports + " ORDER BY fence, body")) {
      while (rows.next()) {
        out.append(out.length() == 0 ? "" : ",").append(rows.getString(1));
      }
    }
    return out.toString();
  }

  /**
   * A table made by the application's own migration, without the guard's {@code CHECK}: a stale
   * fence is refused all the same, and the stored fence stays the highest seen.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "mariadb", "postgres"})
  void aStaleFenceIsRefusedOnATableMadeWithoutTheCheck(String db) throws Exception {
    try (Connection c = connect(db)) {
      try (Statement sql = c.createStatement()) {
        sql.execute(
            "CREATE TABLE "
                + fences
                + " (resource VARCHAR(255) NOT NULL PRIMARY KEY, fence BIGINT NOT NULL)");
        sql.execute("CREATE TABLE " + exports + " (fence BIGINT NOT NULL, body VARCHAR(100))");
      }
      try {
        write(c, 5, "run-5");
        assertThatThrownBy(() -> write(c, 3, "run-3-late")).isInstanceOf(StaleFenceException.class);
        assertThatThrownBy(() -> write(c, 4, "run-4-late")).isInstanceOf(StaleFenceException.class);
        write(c, 5, "run-5-again");
        write(c, 7, "run-7");
        assertThatThrownBy(() -> write(c, 6, "run-6-late")).isInstanceOf(StaleFenceException.class);

        assertThat(bodies(c)).isEqualTo("run-5,run-5-again,run-7");
        try (Statement sql = c.createStatement();
            ResultSet row = sql.executeQuery("SELECT fence FROM " + fences)) {
          assertThat(row.next()).isTrue();
          assertThat(row.getLong(1)).isEqualTo(7);
        }
      } finally {
        tearDown(c);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "mariadb", "postgres"})
  void aStaleWriterIsRefusedAndItsWriteRolledBack(String db) throws Exception {
    try (Connection c = connect(db)) {
      setUp(c);
      try {
        write(c, 3, "run-3");
        write(c, 3, "run-3-again"); // the same run writes twice: allowed
        write(c, 5, "run-5");
        assertThatThrownBy(() -> write(c, 4, "run-4-late"))
            .isInstanceOf(StaleFenceException.class)
            .hasMessage("stale fence 4 for nightly-export: a higher fence was already seen");
        write(c, 6, "run-6");

        assertThat(bodies(c)).isEqualTo("run-3,run-3-again,run-5,run-6");
      } finally {
        tearDown(c);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "mariadb", "postgres"})
  void aStaleWriterRacingANewerUncommittedOneWaitsAndIsRefused(String db) throws Exception {
    try (Connection newer = connect(db);
        Connection stale = connect(db)) {
      setUp(newer);
      try {
        write(newer, 1, "run-1");
        newer.setAutoCommit(false);
        guard.check(newer, "nightly-export", 8); // holds the row until it commits

        CompletableFuture<Void> late =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    write(stale, 7, "run-7-late");
                  } catch (SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        Thread.sleep(300);
        assertThat(late).isNotDone(); // waiting for the newer writer's row lock
        try (PreparedStatement sql =
            newer.prepareStatement(
                "INSERT INTO " + exports + " (fence, body) VALUES (8, 'run-8')")) {
          sql.executeUpdate();
        }
        newer.commit();
        newer.setAutoCommit(true);

        assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasRootCauseInstanceOf(StaleFenceException.class);
        assertThat(bodies(newer)).isEqualTo("run-1,run-8");
      } finally {
        newer.setAutoCommit(true);
        tearDown(newer);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2"})
  void aTableNameThatIsNotAPlainNameIsRefused(String db) {
    assertThatThrownBy(() -> JdbcFenceGuard.onTable("fences; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("table: expected a plain SQL name");
  }
}
