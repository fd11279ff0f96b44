package dev.leasehold.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;

/**
 * The pieces every dialect's claim statements share: the columns a claim answers with, how the
 * attempts are bound, how the answer is read, and the guard of a paused row. Each {@link
 * SqlDialect} builds its statements from these; none of them runs a statement of its own but {@link
 * #read}.
 */
final class ClaimSql {
  private ClaimSql() {}

  /** Claims per statement: 5 binds each stays far below every driver's limit. */
  static final int MAX_BATCH = 500;

  /** The columns every claim statement returns, in this order. */
  static final String COLUMNS =
      "lock_key, token, holder, fence, last_fire, lease_until, pause_claim, paused_at";

  /**
   * One attempt as a row of a {@code VALUES} list, typed (H2 and PostgreSQL do not type a bound
   * parameter from its use): lock_key, holder, token, last_fire, ttl_ms.
   */
  static final String TYPED_ROW =
      "(CAST(? AS VARCHAR(100)), CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(64)),"
          + " CAST(? AS TIMESTAMP(3)), CAST(? AS BIGINT))";

  /**
   * The guarded single-row UPDATE of H2 and PostgreSQL without its {@code RETURNING}: takes a free,
   * unpaused row whose watermark is older than the firing. Binds as {@link #bindUpdateOne}.
   *
   * @param plusTtl the database's clock plus the bound milliseconds, as SQL
   * @param now the database's clock, as SQL
   */
  static String updateOne(String plusTtl, String now) {
    return "UPDATE task_lock SET holder = ?, token = ?, fence = fence + 1,"
        + " last_fire = COALESCE(CAST(? AS TIMESTAMP(3)), last_fire), lease_until = "
        + plusTtl
        + " WHERE lock_key = ? AND paused_at IS NULL AND lease_until <= "
        + now
        + " AND (CAST(? AS TIMESTAMP(3)) IS NULL OR last_fire IS NULL"
        + " OR last_fire < CAST(? AS TIMESTAMP(3)))";
  }

  /** Binds the five values of each attempt, in batch order, from parameter 1. */
  static int bindAttempts(PreparedStatement ps, List<ClaimAttempt> batch, long ttlScale)
      throws SQLException {
    int i = 1;
    for (ClaimAttempt a : batch) {
      ps.setString(i++, a.name());
      ps.setString(i++, a.holder());
      ps.setString(i++, a.token());
      if (a.firing() == null) {
        ps.setNull(i++, Types.TIMESTAMP);
      } else {
        ps.setObject(i++, LocalDateTime.ofInstant(a.firing(), ZoneOffset.UTC));
      }
      ps.setLong(i++, a.ttlMillis() * ttlScale);
    }
    return i;
  }

  /**
   * Binds {@link #updateOne}: holder, token, firing, ttl (ms), name, firing, firing as parameters 1
   * to 7.
   */
  static void bindUpdateOne(PreparedStatement ps, ClaimAttempt a) throws SQLException {
    Object firing = a.firing() == null ? null : LocalDateTime.ofInstant(a.firing(), ZoneOffset.UTC);
    ps.setString(1, a.holder());
    ps.setString(2, a.token());
    ps.setObject(3, firing, Types.TIMESTAMP);
    ps.setLong(4, a.ttlMillis());
    ps.setString(5, a.name());
    ps.setObject(6, firing, Types.TIMESTAMP);
    ps.setObject(7, firing, Types.TIMESTAMP);
  }

  /** The rows of a statement that answers with {@link #COLUMNS}. */
  static List<ClaimRow> rows(PreparedStatement ps) throws SQLException {
    return SqlSupport.rows(ps, ClaimSql::row);
  }

  private static ClaimRow row(ResultSet rs) throws SQLException {
    return new ClaimRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getLong(4),
        instant(rs.getObject(5, LocalDateTime.class)),
        instant(rs.getObject(6, LocalDateTime.class)),
        rs.getString(7),
        rs.getObject(8) != null);
  }

  /**
   * The rows of {@code attempts}' names as they are now: the refusals' reasons, and the rows a
   * statement without {@code RETURNING} (or whose answer left a row out) wrote (the caller tells
   * won from refused by the token, whichever statement returned the row).
   */
  static List<ClaimRow> read(Connection c, List<ClaimAttempt> attempts) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM task_lock WHERE lock_key IN ("
                + repeat("?", attempts.size())
                + ")")) {
      int i = 1;
      for (ClaimAttempt a : attempts) {
        ps.setString(i++, a.name());
      }
      return rows(ps);
    }
  }

  static Instant instant(LocalDateTime local) {
    return local == null ? null : local.toInstant(ZoneOffset.UTC);
  }

  static String repeat(String item, int n) {
    return String.join(", ", Collections.nCopies(n, item));
  }

  /**
   * In a statement that merges a claim (its values called {@code source}) into {@code t}: this
   * claim meets a paused row. It then records the firing instead of taking the lease: the watermark
   * moves, the row keeps its lease, holder and fence, and {@code pause_claim} takes the claim's
   * token (an acquire, with no firing, is not affected by a pause).
   */
  static String pausedClaim(String source) {
    return "(t.paused_at IS NOT NULL AND " + source + ".last_fire IS NOT NULL)";
  }

  /** {@code column = CASE WHEN <paused claim> THEN paused ELSE claimed END}. */
  static String pausedOr(String source, String column, String paused, String claimed) {
    return " "
        + column
        + " = CASE WHEN "
        + pausedClaim(source)
        + " THEN "
        + paused
        + " ELSE "
        + claimed
        + " END";
  }

  /**
   * The SET list of a merge of claims (values called {@code source}) into {@code t}: a free row is
   * taken, a paused row records the firing.
   *
   * @param until the new lease end, as SQL
   */
  static String mergeAssignments(String source, String until) {
    return pausedOr(source, "holder", "t.holder", source + ".holder")
        + ","
        + pausedOr(source, "token", "t.token", source + ".token")
        + ","
        + pausedOr(source, "fence", "t.fence", "t.fence + 1")
        + ", last_fire = COALESCE("
        + source
        + ".last_fire, t.last_fire),"
        + pausedOr(source, "lease_until", "t.lease_until", until)
        + ","
        + pausedOr(source, "pause_claim", source + ".token", "t.pause_claim")
        + ","
        + pausedOr(source, "paused_fire", source + ".last_fire", "t.paused_fire");
  }

  /**
   * The guard of a merge: the firing is newer than the watermark, and the row is free or paused.
   */
  static String mergeGuard(String source, String now) {
    return "("
        + source
        + ".last_fire IS NULL OR t.last_fire IS NULL OR t.last_fire < "
        + source
        + ".last_fire) AND (t.lease_until <= "
        + now
        + " OR "
        + pausedClaim(source)
        + ")";
  }

  /**
   * Whether the single-row fast path (a guarded UPDATE that leaves paused rows alone) must give way
   * to the full statement: it did not win, and the row is paused (a claim then records the firing,
   * an acquire may still take the lease).
   */
  static boolean needsPausedClaim(ClaimAttempt a, ClaimRow row) {
    return row.paused() && !a.token().equals(row.token());
  }
}
