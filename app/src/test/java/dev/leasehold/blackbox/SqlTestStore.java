package dev.leasehold.blackbox;

import dev.leasehold.core.testing.ServerAvailability;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
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
