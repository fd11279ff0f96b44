package dev.leasehold.blackbox;

import dev.leasehold.storekit.testing.ServerAvailability;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;

/**
 * A fresh MariaDB database ({@code CREATE DATABASE lh_bb_<random>}) or PostgreSQL schema ({@code
 * CREATE SCHEMA} plus {@code currentSchema=} in the JDBC URL) for one test, dropped afterwards. The
 * daemons' Flyway migration creates {@code task_lock} in it.
 */
final class SqlTestStore implements BlackBoxStore {
  private static final String HOW_TO_START = "run: bash .ci/services.sh";

  private final String type;
  private final String adminUrl;
  private final String url;
  private final String user;
  private final String dropSql;

  private SqlTestStore(String type, String adminUrl, String url, String user, String dropSql) {
    this.type = type;
    this.adminUrl = adminUrl;
    this.url = url;
    this.user = user;
    this.dropSql = dropSql;
  }

  static String freshName() {
    return "lh_bb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  static SqlTestStore mariadb() {
    ServerAvailability.require("MariaDB on 127.0.0.1:3306", "127.0.0.1", 3306, HOW_TO_START);
    String db = freshName();
    String admin = "jdbc:mariadb://127.0.0.1:3306/test";
    SqlTestStore store =
        new SqlTestStore(
            "mariadb",
            admin,
            "jdbc:mariadb://127.0.0.1:3306/" + db,
            "root",
            "DROP DATABASE IF EXISTS " + db);
    store.execute(admin, "CREATE DATABASE " + db);
    return store;
  }

  static SqlTestStore postgres() {
    ServerAvailability.require("PostgreSQL on 127.0.0.1:5432", "127.0.0.1", 5432, HOW_TO_START);
    String schema = freshName();
    String admin = "jdbc:postgresql://127.0.0.1:5432/test";
    SqlTestStore store =
        new SqlTestStore(
            "postgres",
            admin,
            admin + "?currentSchema=" + schema,
            "postgres",
            "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    store.execute(admin, "CREATE SCHEMA " + schema);
    return store;
  }

  /** The same database under another store type (a test-only adapter on the same server). */
  String yaml(String storeType) {
    return "type: " + storeType + "\nurl: " + url + "\nusername: " + user + "\n";
  }

  @Override
  public String yaml() {
    return yaml(type);
  }

  @Override
  public void stealLease(String name) {
    try (Connection c = DriverManager.getConnection(url, user, "");
        PreparedStatement delete = c.prepareStatement("DELETE FROM task_lock WHERE lock_key = ?")) {
      delete.setString(1, name);
      if (delete.executeUpdate() != 1) {
        throw new AssertionError("no task_lock row for " + name + " in " + url);
      }
    } catch (SQLException e) {
      throw new AssertionError("cannot delete the lease row of " + name + ": " + e, e);
    }
  }

  /**
   * Inserts {@code count} succeeded runs of {@code job} that ended at {@code finished} (one
   * millisecond apart), as a daemon writes them, in batches.
   */
  void seedHistory(String job, int count, Instant finished) {
    String insert =
        "INSERT INTO task_execution (job, fire_time, node, fence, trigger_kind, started_at,"
            + " finished_at, outcome, exit_code, detail, output)"
            + " VALUES (?, ?, 'seed', ?, 'SCHEDULED', ?, ?, 'SUCCEEDED', 0, NULL, ?)";
    try (Connection c = DriverManager.getConnection(url, user, "");
        PreparedStatement ps = c.prepareStatement(insert)) {
      c.setAutoCommit(false);
      for (int i = 0; i < count; i++) {
        LocalDateTime at =
            LocalDateTime.ofInstant(finished.plusMillis(i - count), ZoneOffset.UTC)
                .truncatedTo(ChronoUnit.MILLIS);
        ps.setString(1, job);
        ps.setObject(2, at);
        ps.setLong(3, i + 1);
        ps.setObject(4, at);
        ps.setObject(5, at);
        ps.setString(6, "seeded run " + i);
        ps.addBatch();
        if (i % 1000 == 999 || i == count - 1) {
          ps.executeBatch();
          c.commit();
        }
      }
    } catch (SQLException e) {
      throw new AssertionError("cannot seed the history of " + job + ": " + e, e);
    }
  }

  /** How many history rows {@code job} has. */
  long historyRows(String job) {
    try (Connection c = DriverManager.getConnection(url, user, "");
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM task_execution WHERE job = ?")) {
      ps.setString(1, job);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError("cannot count the history of " + job + ": " + e, e);
    }
  }

  @Override
  public void close() {
    execute(adminUrl, dropSql);
  }

  private void execute(String jdbcUrl, String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl, user, "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new AssertionError(sql + " failed on " + jdbcUrl + ": " + e, e);
    }
  }

  @Override
  public String toString() {
    return type.toUpperCase(Locale.ROOT) + " " + url;
  }
}
