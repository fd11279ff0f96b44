package dev.leasehold.store.sql;

import dev.leasehold.core.store.StoreSelfCheck;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;

/**
 * What a name's first claim restores from when its lease row went away: the highest fence and
 * watermark of its deleted rows, kept in {@code task_lock_high_water} by a trigger on every delete
 * of a {@code task_lock} row (migration V6: the database itself keeps them, so an operator's {@code
 * DELETE FROM task_lock ...} costs no statement on the claim path and cannot be missed), and the
 * floor of forgotten fences ({@link SqlForget#FLOOR}). Both are read by one statement, only on a
 * name's first claim (fence 1) or when a fence goes back.
 */
final class SqlHighWater {
  static final String TABLE = "task_lock_high_water";

  private SqlHighWater() {}

  /**
   * @param floor the floor of forgotten fences (0 for a scratch name, or none)
   * @param fence the highest fence of the name's deleted rows, 0 when none was deleted
   * @param lastFire the highest watermark of the name's deleted rows, {@code null} when none
   * @param deleted whether a row of the name was deleted (and not forgotten since)
   */
  record Marks(long floor, long fence, Instant lastFire, boolean deleted) {}

  private static final String READ =
      "SELECT fence, last_fire, 1 FROM "
          + TABLE
          + " WHERE lock_key = ? UNION ALL SELECT fence, NULL, 0 FROM task_lock WHERE lock_key = ?";

  private static final String FORGET = "DELETE FROM " + TABLE + " WHERE lock_key = ?";

  /**
   * The marks of {@code name}. A database whose schema has no high-water table (a table made by
   * hand, not by the store's migration) has none: the floor alone is read then.
   */
  static Marks read(Connection c, String name) throws SQLException {
    boolean scratch = StoreSelfCheck.isScratch(name);
    long floor = 0;
    long fence = 0;
    Instant lastFire = null;
    boolean deleted = false;
    try (PreparedStatement ps = c.prepareStatement(READ)) {
      ps.setString(1, name);
      ps.setString(2, SqlForget.FLOOR);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (rs.getInt(3) == 1) {
            deleted = true;
            fence = rs.getLong(1);
            lastFire = ClaimSql.instant(rs.getObject(2, LocalDateTime.class));
          } else if (!scratch) {
            floor = rs.getLong(1);
          }
        }
      }
    } catch (SQLException e) {
      if (!missingTable(e)) {
        throw e;
      }
      return new Marks(SqlForget.floor(c, name), 0, null, false);
    }
    return new Marks(floor, fence, lastFire, deleted);
  }

  /** In {@code forget}'s transaction, after the row went: the name starts afresh. */
  static void forget(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FORGET)) {
      ps.setString(1, name);
      ps.executeUpdate();
    }
  }

  /** "Table not found": SQLState 42S02 (H2, MariaDB/MySQL) or 42P01 (PostgreSQL). */
  private static boolean missingTable(SQLException e) {
    return "42S02".equals(e.getSQLState())
        || "42P01".equals(e.getSQLState())
        || e.getErrorCode() == 42102
        || e.getErrorCode() == 1146;
  }
}
