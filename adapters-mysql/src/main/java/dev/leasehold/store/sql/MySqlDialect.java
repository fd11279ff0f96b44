package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.ClaimSql.COLUMNS;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.lease.LeaseStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.jooq.SQLDialect;

/**
 * MariaDB and MySQL, through the MariaDB driver. The claim is {@code INSERT ... ON DUPLICATE KEY
 * UPDATE} with guarded assignments; how its answer comes back differs:
 *
 * <p><b>MariaDB</b> (10.5 and later, {@code store.type: mariadb}): the upsert with {@code
 * RETURNING}, one statement for any batch.
 *
 * <p><b>MySQL</b> (and MariaDB configured as {@code mysql}): no {@code RETURNING}, so a single
 * claim carries its answer in the OK packet. Every branch of the upsert calls {@code
 * LAST_INSERT_ID(x)}, whose value the server sends back as the statement's insert id:
 *
 * <ul>
 *   <li>a first claim inserts the row with {@code fence = LAST_INSERT_ID(1)} (1 row changed);
 *   <li>a won claim of an existing row sets {@code fence = LAST_INSERT_ID(fence + 1)} (2 rows);
 *   <li>a claim of a paused row records its firing (watermark and {@code pause_claim}) and sets
 *       {@link #PAUSED} (2 rows);
 *   <li>a refused claim leaves the row as it is and sets {@code LAST_INSERT_ID} to {@link #HELD} or
 *       {@link #ALREADY_RUN} plus the watermark (1 row found, or 0 with {@code useAffectedRows}).
 * </ul>
 *
 * Any other combination of insert id and row count means the server did not do what the statement
 * says, and the claim fails closed. A batch runs the upsert for all its rows, then reads the rows
 * back with one SELECT (two statements): the rows carrying the batch's tokens are the ones won.
 */
final class MySqlDialect extends SqlDialect {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MySqlDialect.class);
  private static final String HIGH_WATER_TRIGGER_NAME = "task_lock_keep_high_water";
  private static final int ER_TRG_ALREADY_EXISTS = 1359;

  static final String NOW = "CAST(CURRENT_TIMESTAMP(3) AS DATETIME(3))";

  /** Refusal codes: far above any fence a table will reach. */
  static final long HELD = 1L << 61;

  /**
   * This claim recorded its firing as paused (the job is paused: no lease, the watermark moved).
   */
  static final long PAUSED = 1L << 60;

  static final long ALREADY_RUN = 1L << 62;

  /** Added to the watermark's epoch milliseconds (years 1000-9999 fit either side of it). */
  static final long WATERMARK_OFFSET = 1L << 49;

  /** Sets the refusal code from the row as found (evaluated before {@code last_fire} is set). */
  static final String REFUSAL =
      "LAST_INSERT_ID(IF(VALUES(last_fire) IS NOT NULL AND last_fire >= VALUES(last_fire), "
          + ALREADY_RUN
          + ", "
          + HELD
          + ") + IF(last_fire IS NULL, 0, "
          + WATERMARK_OFFSET
          + " + TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', last_fire) DIV 1000))";

  /** Whether the server answers with {@code RETURNING} (MariaDB) or with the insert id (MySQL). */
  private final boolean returning;

  MySqlDialect(String type, SQLDialect jooq, boolean returning) {
    super(
        type,
        jooq,
        "org.mariadb.jdbc.Driver",
        returning
            ? "jdbc:mariadb://host:3306/db or jdbc:mysql://host:3306/db"
            : "jdbc:mysql://host:3306/db or jdbc:mariadb://host:3306/db",
        "SET time_zone = '+00:00'",
        NOW,
        "(" + NOW + " + INTERVAL ? * 1000 MICROSECOND)",
        returning ? n -> upsert(n, false) + " RETURNING " + COLUMNS : n -> upsert(n, n == 1));
    this.returning = returning;
  }

  /** The upsert of {@code n} claims; {@code lastInsertId}: each branch sets the insert id. */
  static String upsert(int n, boolean lastInsertId) {
    String row =
        "(?, ?, ?, "
            + (lastInsertId ? "LAST_INSERT_ID(1)" : "1")
            + ", ?, "
            + NOW
            + " + INTERVAL ? MICROSECOND)";
    String ours = "token <=> VALUES(token)";
    String recorded = "pause_claim <=> VALUES(token)";
    String fence =
        lastInsertId
            ? "IF("
                + ours
                + ", LAST_INSERT_ID(fence + 1), IF("
                + recorded
                + ", IF(LAST_INSERT_ID("
                + PAUSED
                + ") > 0, fence, fence), IF("
                + REFUSAL
                + " > 0, fence,"
                + " fence)))"
            : "IF(" + ours + ", fence + 1, fence)";
    String older =
        "(VALUES(last_fire) IS NULL OR last_fire IS NULL OR last_fire < VALUES(last_fire))";
    // the first two assignments decide on the row as found (a paused row records the firing, a
    // free one is taken); the others follow the tokens they set
    return "INSERT INTO task_lock (lock_key, holder, token, fence, last_fire, lease_until) VALUES "
        + ClaimSql.repeat(row, n)
        + " ON DUPLICATE KEY UPDATE pause_claim = IF(paused_at IS NOT NULL AND VALUES(last_fire)"
        + " IS NOT NULL AND "
        + older
        + ", VALUES(token), pause_claim), token = IF((paused_at IS NULL OR VALUES(last_fire)"
        + " IS NULL) AND lease_until <= "
        + NOW
        + " AND "
        + older
        + ", VALUES(token), token), holder = IF("
        + ours
        + ", VALUES(holder), holder), fence = "
        + fence
        + ", paused_fire = IF("
        + recorded
        + ", VALUES(last_fire), paused_fire), last_fire = IF("
        + ours
        + " OR "
        + recorded
        + ", COALESCE(VALUES(last_fire), last_fire), last_fire), lease_until = IF("
        + ours
        + ", VALUES(lease_until), lease_until)";
  }

  @Override
  List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException {
    if (returning) {
      try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
        ClaimSql.bindAttempts(ps, batch, 1000);
        return ClaimSql.rows(ps);
      }
    }
    return batch.size() == 1 ? List.of(single(c, batch.get(0))) : several(c, batch);
  }

  private ClaimRow single(Connection c, ClaimAttempt a) throws SQLException {
    long id;
    int changed;
    try (PreparedStatement ps = c.prepareStatement(claimSql(1), Statement.RETURN_GENERATED_KEYS)) {
      ClaimSql.bindAttempts(ps, List.of(a), 1000);
      changed = ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        id = keys.next() ? keys.getLong(1) : 0;
      }
    }
    if (id == PAUSED && changed == 2) {
      return new ClaimRow(a.name(), null, null, 0, a.firing(), null, a.token(), true);
    }
    if (id >= 1 && id < PAUSED && (id == 1 ? changed == 1 : changed == 2)) {
      return new ClaimRow(a.name(), a.token(), a.holder(), id, a.firing(), null, null, false);
    }
    if (id >= HELD && (changed == 0 || changed == 1)) {
      long code = id >= ALREADY_RUN ? id - ALREADY_RUN : id - HELD;
      Instant watermark = code == 0 ? null : Instant.ofEpochMilli(code - WATERMARK_OFFSET);
      return new ClaimRow(a.name(), null, null, 0, watermark, null, null, false);
    }
    throw new LeaseStoreException(
        "SQL store: claim of "
            + a.name()
            + ": the server's answer does not fit the claim statement (insert id "
            + id
            + ", "
            + changed
            + " rows changed; expected 1 and 1, a fence and 2, or a refusal code and at most 1):"
            + " the server or the task_lock table does not behave as MySQL; claim refused");
  }

  private List<ClaimRow> several(Connection c, List<ClaimAttempt> batch) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
      ClaimSql.bindAttempts(ps, batch, 1000);
      ps.executeUpdate();
    }
    return ClaimSql.read(c, batch);
  }

  @Override
  boolean accepts(String url) {
    return url.startsWith("jdbc:mysql://") || url.startsWith("jdbc:mariadb://");
  }

  /** {@code jdbc:mysql:} URLs get the flag that lets the MariaDB driver accept them. */
  @Override
  String driverUrl(String url) {
    if (url.startsWith("jdbc:mysql:") && !url.contains("permitMysqlScheme")) {
      return url + (url.contains("?") ? "&" : "?") + "permitMysqlScheme";
    }
    return url;
  }

  @Override
  Properties timeoutProperties(Duration connect, Duration read) {
    Properties p = new Properties();
    p.setProperty("connectTimeout", Long.toString(millis(connect)));
    p.setProperty("socketTimeout", Long.toString(millis(read)));
    return p;
  }

  /** Statements each pooled connection keeps prepared on the server (the driver's default: 250). */
  static final int PREPARED_PER_CONNECTION = 16;

  /**
   * The pool's statements are prepared on the server (the binary protocol) and each connection
   * keeps its {@value #PREPARED_PER_CONNECTION} most recently used ones prepared: the claim, about
   * 1,100 characters (1,400 on MySQL) with seven guarded assignments, sent as text (the driver's
   * default) is parsed anew at every firing, which was most of what its cycle cost over ShedLock's
   * (see the SQL store's page, "Cost per claim"). The small cache bounds what a replica holds on
   * the server ({@code max_prepared_stmt_count}, 16,382 by default, counts every client's): at most
   * that many per pooled connection. A statement the server will not prepare (its limit reached, or
   * a command the binary protocol lacks) is sent as text by the driver.
   */
  @Override
  Properties poolProperties(Duration connect, Duration read) {
    Properties p = timeoutProperties(connect, read);
    p.setProperty("useServerPrepStmts", "true");
    p.setProperty("cachePrepStmts", "true");
    p.setProperty("prepStmtCacheSize", Integer.toString(PREPARED_PER_CONNECTION));
    return p;
  }

  /**
   * {@code DATETIME(3)}: no 2038 limit, no session time zone conversion; {@code MEDIUMTEXT}: a
   * 16384-character VARCHAR in utf8mb4 would exceed the row size. The high-water trigger is not
   * part of the migration here: creating it may need privileges a service account lacks ({@link
   * #opened}), and a migration that fails on MySQL leaves Flyway's history marked failed.
   */
  @Override
  Map<String, String> migrationPlaceholders() {
    return placeholders(
        datetimeType(),
        "BIGINT AUTO_INCREMENT PRIMARY KEY",
        " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
        "MEDIUMTEXT",
        "");
  }

  /**
   * One statement (no {@code BEGIN ... END}, so no delimiter): raises the name's high-water row to
   * the deleted row's fence and watermark.
   */
  static final String HIGH_WATER_TRIGGER =
      "CREATE TRIGGER "
          + HIGH_WATER_TRIGGER_NAME
          + " AFTER DELETE ON task_lock FOR EACH ROW"
          + " INSERT INTO task_lock_high_water (lock_key, fence, last_fire)"
          + " VALUES (OLD.lock_key, OLD.fence, OLD.last_fire) ON DUPLICATE KEY UPDATE"
          + " fence = GREATEST(fence, VALUES(fence)), last_fire = GREATEST("
          + "COALESCE(last_fire, VALUES(last_fire)), COALESCE(VALUES(last_fire), last_fire))";

  /**
   * Creates the high-water trigger when the schema lacks it. Creating a trigger needs the {@code
   * TRIGGER} privilege and, with binary logging on (MySQL 8's default), {@code SUPER} or {@code
   * log_bin_trust_function_creators = 1}; a service account may have neither. The store then opens
   * anyway, with one WARN saying what an operator gives up (a {@code task_lock} row deleted by hand
   * loses its watermark, as before the trigger) and how to add it; every later open tries again. Of
   * several first opens at once, one creates it and the others find it (error 1359).
   */
  @Override
  void opened(HikariDataSource pool, String url) {
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      try (ResultSet rs =
          st.executeQuery(
              "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()"
                  + " AND TRIGGER_NAME = '"
                  + HIGH_WATER_TRIGGER_NAME
                  + "'")) {
        if (rs.next() && rs.getLong(1) > 0) {
          return;
        }
      }
      st.execute(HIGH_WATER_TRIGGER);
    } catch (SQLException e) {
      if (e.getErrorCode() == ER_TRG_ALREADY_EXISTS) {
        return;
      }
      LOG.warn(
          "{}: cannot create the trigger {} on task_lock ({}): a task_lock row deleted by hand"
              + " loses its watermark, so a firing still within its misfire grace may run once"
              + " more; grant TRIGGER (and, with binary logging, SUPER or set"
              + " log_bin_trust_function_creators = 1) and restart, or create it as an"
              + " administrator (docs/stores/sql.md, Privileges)",
          displayName(),
          HIGH_WATER_TRIGGER_NAME,
          SqlSupport.describe(e));
    }
  }

  @Override
  String datetimeType() {
    return "DATETIME(3)";
  }

  @Override
  String displayName() {
    return "MariaDB/MySQL";
  }

  @Override
  int defaultPort() {
    return 3306;
  }
}
