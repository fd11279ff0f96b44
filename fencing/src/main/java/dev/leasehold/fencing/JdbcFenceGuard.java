package dev.leasehold.fencing;

import dev.leasehold.core.exclusive.CurrentFiring;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Objects;

/**
 * Refuses a write whose fence is lower than the highest seen for its resource, inside the caller's
 * transaction: call {@link #check} on the connection of the transaction that writes, before (or
 * after) the write and before the commit.
 *
 * <p>One table ({@code resource} primary key, the highest {@code fence}) and one statement per
 * check (three on MariaDB/MySQL): an upsert that raises the stored fence when the new one is at
 * least as high and changes nothing otherwise. Why it is safe: the statement takes the row's write
 * lock, held until the transaction ends, so of two writers of one resource the second waits for the
 * first to commit or roll back and then compares against what the first recorded. A stale writer's
 * check fails, its transaction is rolled back by the caller, and a newer writer is never undone by
 * an older one. An equal fence passes, so one run may write several times.
 *
 * <ul>
 *   <li>PostgreSQL: {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE stored <= new} (0 rows:
 *       stale);
 *   <li>H2: {@code MERGE ... WHEN MATCHED AND stored <= new} (0 rows: stale);
 *   <li>MariaDB/MySQL: the row made if missing and locked, read {@code FOR UPDATE}, compared, then
 *       raised (MySQL's affected-row count cannot tell "unchanged" from "inserted" under the
 *       drivers' found-rows default); no constraint is relied on, so a table made without the
 *       {@code CHECK} is as safe.
 * </ul>
 */
public final class JdbcFenceGuard {
  /** The default table name. */
  public static final String DEFAULT_TABLE = "leasehold_fence";

  private final String table;

  private JdbcFenceGuard(String table) {
    if (!table.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
      throw new IllegalArgumentException(
          "table: expected a plain SQL name ([A-Za-z_][A-Za-z0-9_]*), got " + table);
    }
    this.table = table;
  }

  /** A guard on {@value #DEFAULT_TABLE}. */
  public static JdbcFenceGuard create() {
    return new JdbcFenceGuard(DEFAULT_TABLE);
  }

  /** A guard on the table {@code table}. */
  public static JdbcFenceGuard onTable(String table) {
    return new JdbcFenceGuard(Objects.requireNonNull(table, "table"));
  }

  /** Creates the table when it does not exist (for applications without migrations). */
  public void createTable(Connection connection) throws SQLException {
    try (Statement sql = connection.createStatement()) {
      sql.execute(
          "CREATE TABLE IF NOT EXISTS "
              + table
              + " (resource VARCHAR(255) NOT NULL PRIMARY KEY,"
              + " fence BIGINT NOT NULL, CONSTRAINT "
              + table
              + "_fence_ck CHECK (fence >= 0))");
    }
  }

  /** {@link #check(Connection, String, long)} with the fence of the run on this thread. */
  public void check(Connection connection, String resource) throws SQLException {
    check(connection, resource, CurrentFiring.fence());
  }

  /**
   * Records {@code fence} for {@code resource}, or refuses it when a higher one was seen.
   *
   * @throws StaleFenceException when a higher fence was already recorded for the resource
   */
  public void check(Connection connection, String resource, long fence) throws SQLException {
    Objects.requireNonNull(resource, "resource");
    if (fence < 0) {
      throw new IllegalArgumentException("fence must not be negative, got " + fence);
    }
    String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("mariadb") || product.contains("mysql")) {
      checkMysql(connection, resource, fence);
      return;
    }
    String statement;
    if (product.contains("postgres")) {
      statement =
          "INSERT INTO "
              + table
              + " (resource, fence) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE SET fence ="
              + " EXCLUDED.fence WHERE "
              + table
              + ".fence <= EXCLUDED.fence";
    } else if (product.contains("h2")) {
      statement =
          "MERGE INTO "
              + table
              + " t USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) s(resource, fence)"
              + " ON t.resource = s.resource"
              + " WHEN MATCHED AND t.fence <= s.fence THEN UPDATE SET fence = s.fence"
              + " WHEN NOT MATCHED THEN INSERT (resource, fence) VALUES (s.resource, s.fence)";
    } else {
      throw new SQLException("fence guard: unsupported database " + product);
    }
    try (PreparedStatement sql = connection.prepareStatement(statement)) {
      sql.setString(1, resource);
      sql.setLong(2, fence);
      if (sql.executeUpdate() == 0) {
        throw new StaleFenceException(resource, fence, null);
      }
    }
  }

  /**
   * MariaDB/MySQL: the row is made if missing and write-locked ({@code ON DUPLICATE KEY UPDATE
   * fence = fence} changes nothing), then read under that lock ({@code FOR UPDATE}) and compared
   * here, then raised. The decision never depends on a constraint: a table made without the {@code
   * CHECK} (an application's own migration) or a server that ignores {@code CHECK} still refuses a
   * stale fence, and nothing but a fence at least as high is ever stored.
   */
  private void checkMysql(Connection connection, String resource, long fence) throws SQLException {
    try (PreparedStatement lock =
        connection.prepareStatement(
            "INSERT INTO "
                + table
                + " (resource, fence) VALUES (?, ?) ON DUPLICATE KEY UPDATE fence = fence")) {
      lock.setString(1, resource);
      lock.setLong(2, fence);
      lock.executeUpdate();
    }
    long stored;
    try (PreparedStatement read =
        connection.prepareStatement(
            "SELECT fence FROM " + table + " WHERE resource = ? FOR UPDATE")) {
      read.setString(1, resource);
      try (java.sql.ResultSet row = read.executeQuery()) {
        if (!row.next()) {
          throw new SQLException("fence guard: the row of " + resource + " vanished");
        }
        stored = row.getLong(1);
      }
    }
    if (stored > fence || stored < 0) {
      throw new StaleFenceException(resource, fence, null);
    }
    if (stored < fence) {
      try (PreparedStatement raise =
          connection.prepareStatement("UPDATE " + table + " SET fence = ? WHERE resource = ?")) {
        raise.setLong(1, fence);
        raise.setString(2, resource);
        raise.executeUpdate();
      }
    }
  }
}
