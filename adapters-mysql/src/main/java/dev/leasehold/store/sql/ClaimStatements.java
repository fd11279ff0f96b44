package dev.leasehold.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The lease statements of each database as plain SQL, rendered once per database and batch size and
 * run through JDBC prepared statements (the hot path: no query building per call). A claim, a batch
 * of claims, a renewal and a release are each <b>one statement</b>, so each is atomic on its own in
 * autocommit; every time that decides expiry is the database's clock.
 *
 * <p>A claim statement answers with rows of {@code task_lock}: the row as the claim left it when
 * the claim won (recognised by the claim's own random token), else the row as the statement saw it,
 * from which the caller tells "held" from "already run". See {@code docs/stores/sql.md} for each
 * database's statement and why it is atomic.
 */
abstract class ClaimStatements {
  /** Claims per statement: 5 binds each stays far below every driver's limit. */
  static final int MAX_BATCH = 500;

  /** The columns every claim statement returns, in this order. */
  static final String COLUMNS = "lock_key, token, holder, fence, last_fire, lease_until";

  final String release;
  final String renew;
  private final Map<Integer, String> claimSql = new ConcurrentHashMap<>();
  private final IntFunction<String> render;

  /**
   * @param now the database's current time, as SQL
   * @param plusTtl the database's current time plus a bound number of milliseconds, as SQL
   */
  ClaimStatements(String now, String plusTtl, IntFunction<String> render) {
    this.render = render;
    this.release =
        "UPDATE task_lock SET holder = NULL, token = NULL, lease_until = "
            + now
            + " WHERE lock_key = ? AND token = ?";
    this.renew =
        "UPDATE task_lock SET lease_until = "
            + plusTtl
            + " WHERE lock_key = ? AND token = ? AND lease_until > "
            + now;
  }

  static ClaimStatements forVendor(SqlVendor vendor) {
    return switch (vendor) {
      case POSTGRES -> new Postgres();
      case H2 -> new H2Claims();
      case MARIADB -> new MariaDb();
      case MYSQL -> new MySqlClaims();
    };
  }

  /**
   * Runs the claims of {@code batch} (distinct names, sorted by name so that concurrent batches
   * lock rows in the same order) and returns the rows the database answered with.
   */
  abstract List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException;

  /**
   * Whether a name's first claim (fence 1) must be followed by a check that the table holds one row
   * for the name: on databases whose claim statement would silently insert a second row into a
   * table that lacks its primary key.
   */
  boolean checksUniqueness() {
    return true;
  }

  final String claimSql(int size) {
    return claimSql.computeIfAbsent(size, render::apply);
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
   * Binds a single guarded UPDATE: holder, token, firing, ttl (ms), name, firing, firing as
   * parameters 1 to 7.
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

  static List<ClaimRow> rows(PreparedStatement ps) throws SQLException {
    List<ClaimRow> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(
            new ClaimRow(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getLong(4),
                instant(rs.getObject(5, LocalDateTime.class)),
                instant(rs.getObject(6, LocalDateTime.class))));
      }
    }
    return rows;
  }

  static Instant instant(LocalDateTime local) {
    return local == null ? null : local.toInstant(ZoneOffset.UTC);
  }

  static String repeat(String item, int n) {
    return String.join(", ", java.util.Collections.nCopies(n, item));
  }

  /**
   * PostgreSQL: {@code INSERT ... ON CONFLICT (lock_key) DO UPDATE ... WHERE <free and older>
   * RETURNING} in a CTE, plus the rows it did not take, in one statement.
   */
  private static final class Postgres extends ClaimStatements {
    private static final String NOW = "CAST(CURRENT_TIMESTAMP(3) AS TIMESTAMP(3))";

    Postgres() {
      super(NOW, "(" + NOW + " + ? * INTERVAL '1 millisecond')", Postgres::render);
    }

    private static String render(int n) {
      String row =
          "(CAST(? AS VARCHAR(100)), CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(64)),"
              + " CAST(? AS TIMESTAMP(3)), CAST(? AS BIGINT))";
      return "WITH s (lock_key, holder, token, last_fire, ttl_ms) AS (VALUES "
          + repeat(row, n)
          + "), w AS (INSERT INTO task_lock AS t (lock_key, holder, token, fence, last_fire,"
          + " lease_until) SELECT lock_key, holder, token, 1, last_fire, "
          + NOW
          + " + ttl_ms * INTERVAL '1 millisecond' FROM s ORDER BY lock_key"
          + " ON CONFLICT (lock_key) DO UPDATE SET holder = EXCLUDED.holder,"
          + " token = EXCLUDED.token, fence = t.fence + 1,"
          + " last_fire = COALESCE(EXCLUDED.last_fire, t.last_fire),"
          + " lease_until = EXCLUDED.lease_until WHERE t.lease_until <= "
          + NOW
          + " AND (EXCLUDED.last_fire IS NULL OR t.last_fire IS NULL"
          + " OR t.last_fire < EXCLUDED.last_fire)"
          + " RETURNING t.lock_key, t.token, t.holder, t.fence, t.last_fire, t.lease_until)"
          + " SELECT "
          + COLUMNS
          + " FROM w UNION ALL SELECT t.lock_key, NULL, t.holder, t.fence, t.last_fire,"
          + " t.lease_until FROM task_lock t WHERE t.lock_key IN (SELECT lock_key FROM s)"
          + " AND NOT EXISTS (SELECT 1 FROM w WHERE w.lock_key = t.lock_key)";
    }

    /**
     * A single claim of a name that has a row: the guarded UPDATE with {@code RETURNING}, plus the
     * row it did not take, in one statement (a fifth cheaper than the upsert, measured side by
     * side). When neither part finds a row the name is new, and the upsert inserts it.
     */
    private static final String UPDATE_ONE =
        "WITH u AS (UPDATE task_lock SET holder = ?, token = ?, fence = fence + 1,"
            + " last_fire = COALESCE(CAST(? AS TIMESTAMP(3)), last_fire), lease_until = "
            + NOW
            + " + CAST(? AS BIGINT) * INTERVAL '1 millisecond' WHERE lock_key = ? AND lease_until <= "
            + NOW
            + " AND (CAST(? AS TIMESTAMP(3)) IS NULL OR last_fire IS NULL"
            + " OR last_fire < CAST(? AS TIMESTAMP(3))) RETURNING "
            + COLUMNS
            + ") SELECT "
            + COLUMNS
            + " FROM u UNION ALL SELECT lock_key, NULL, holder, fence, last_fire, lease_until"
            + " FROM task_lock WHERE lock_key = ? AND NOT EXISTS (SELECT 1 FROM u)";

    @Override
    List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException {
      if (batch.size() == 1) {
        ClaimAttempt a = batch.get(0);
        try (PreparedStatement ps = c.prepareStatement(UPDATE_ONE)) {
          bindUpdateOne(ps, a);
          ps.setString(8, a.name());
          List<ClaimRow> rows = rows(ps);
          if (!rows.isEmpty()) {
            return rows;
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
        bindAttempts(ps, batch, 1);
        return rows(ps);
      }
    }

    /** {@code ON CONFLICT (lock_key)} fails on a table without a unique key on the name. */
    @Override
    boolean checksUniqueness() {
      return false;
    }
  }

  /**
   * The rows of {@code attempts}' names as they are now: the refusals' reasons, and on H2 also the
   * check that a row the MERGE did not report is not in fact this claim's own (the caller tells won
   * from refused by the token, whichever statement returned the row).
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

  /**
   * The MariaDB/MySQL claim: {@code INSERT ... ON DUPLICATE KEY UPDATE} with guarded assignments.
   */
  static final String MYSQL_NOW = "CAST(CURRENT_TIMESTAMP(3) AS DATETIME(3))";

  static String upsert(int n, boolean lastInsertId) {
    String row =
        "(?, ?, ?, "
            + (lastInsertId ? "LAST_INSERT_ID(1)" : "1")
            + ", ?, "
            + MYSQL_NOW
            + " + INTERVAL ? MICROSECOND)";
    String ours = "token <=> VALUES(token)";
    String fence =
        lastInsertId
            ? "IF("
                + ours
                + ", LAST_INSERT_ID(fence + 1), IF("
                + MySqlClaims.REFUSAL
                + " > 0, fence,"
                + " fence))"
            : "IF(" + ours + ", fence + 1, fence)";
    // the first assignment decides on the row as found; the others follow the token it set
    return "INSERT INTO task_lock (lock_key, holder, token, fence, last_fire, lease_until) VALUES "
        + repeat(row, n)
        + " ON DUPLICATE KEY UPDATE token = IF(lease_until <= "
        + MYSQL_NOW
        + " AND (VALUES(last_fire) IS NULL OR last_fire IS NULL"
        + " OR last_fire < VALUES(last_fire)), VALUES(token), token), holder = IF("
        + ours
        + ", VALUES(holder), holder), fence = "
        + fence
        + ", last_fire = IF("
        + ours
        + ", COALESCE(VALUES(last_fire), last_fire), last_fire), lease_until = IF("
        + ours
        + ", VALUES(lease_until), lease_until)";
  }

  /** MariaDB (10.5 and later): the upsert with {@code RETURNING}, one statement for any batch. */
  private static final class MariaDb extends ClaimStatements {
    MariaDb() {
      super(
          MYSQL_NOW,
          "(" + MYSQL_NOW + " + INTERVAL ? * 1000 MICROSECOND)",
          n -> upsert(n, false) + " RETURNING " + COLUMNS);
    }

    @Override
    List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
        bindAttempts(ps, batch, 1000);
        return rows(ps);
      }
    }
  }
}
