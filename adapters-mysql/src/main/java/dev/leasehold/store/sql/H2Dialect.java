package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.ClaimSql.COLUMNS;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.lease.LeaseDefaults;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/**
 * H2, embedded in this JVM (a file shared by the processes of one machine through {@code
 * AUTO_SERVER}).
 *
 * <p>Claims: {@code MERGE INTO ... USING (VALUES ...) WHEN MATCHED AND <free and older> THEN UPDATE
 * WHEN NOT MATCHED THEN INSERT}, read through {@code FINAL TABLE}: one statement takes the free
 * names and returns their rows. The names it did not take are read by a second SELECT, only when
 * there are any: H2 runs in this JVM (no round trip), and it parses a union of the two anew on
 * every call (several times slower than the pair here), while each alone stays in its query cache.
 *
 * <p>Opening: the data directory and files are made private first; the first connection waits while
 * another process's lock on the file ages; the migration runs in the database this process has open
 * (the pool); the pool's connection keeps the database open once the first one closes.
 */
final class H2Dialect extends SqlDialect {
  private static final String NOW = "CAST(CURRENT_TIMESTAMP(3) AS TIMESTAMP(3))";
  private static final String PLUS_TTL = "DATEADD(MILLISECOND, CAST(? AS BIGINT), " + NOW + ")";

  /**
   * H2 error codes that mean another process has the file, or had it until a moment ago: database
   * already open (90020), lock file recently modified (8000, while a stale lock ages), and the
   * sharing process's server not answering (90067).
   */
  private static final Set<Integer> LOCKED = Set.of(90020, 8000, 90067);

  /**
   * How long the first connection to an H2 file keeps trying while the file is locked: after a
   * process died without closing it, or right after another process closed it, H2 refuses until the
   * stale {@code .lock.db} is old enough to take over. Only the first connection waits this long;
   * the pool's wait and H2's {@code LOCK_TIMEOUT} stay the command timeout.
   */
  private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(30);

  H2Dialect() {
    super(
        "h2",
        SQLDialect.H2,
        "org.h2.Driver",
        LeaseDefaults.H2_URL,
        "SET TIME ZONE 'UTC'",
        NOW,
        PLUS_TTL,
        H2Dialect::render);
  }

  private static String render(int n) {
    String until = "DATEADD(MILLISECOND, s.ttl_ms, " + NOW + ")";
    return "SELECT "
        + COLUMNS
        + " FROM FINAL TABLE (MERGE INTO task_lock t USING (VALUES "
        + ClaimSql.repeat(ClaimSql.TYPED_ROW, n)
        + ") s (lock_key, holder, token, last_fire, ttl_ms) ON t.lock_key = s.lock_key"
        + " WHEN MATCHED AND "
        + ClaimSql.mergeGuard("s", NOW)
        + " THEN UPDATE SET"
        + ClaimSql.mergeAssignments("s", until)
        + " WHEN NOT MATCHED THEN INSERT (lock_key, holder, token, fence, last_fire,"
        + " lease_until) VALUES (s.lock_key, s.holder, s.token, 1, s.last_fire, "
        + until
        + "))";
  }

  /**
   * A single claim of an existing row: the guarded UPDATE alone, read through {@code FINAL TABLE}
   * (H2 runs it in a third of the MERGE's time); a name without a row yet takes the MERGE.
   */
  private static final String UPDATE_ONE =
      "SELECT " + COLUMNS + " FROM FINAL TABLE (" + ClaimSql.updateOne(PLUS_TTL, NOW) + ")";

  @Override
  List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException {
    if (batch.size() == 1) {
      List<ClaimRow> rows;
      try (PreparedStatement ps = c.prepareStatement(UPDATE_ONE)) {
        ClaimSql.bindUpdateOne(ps, batch.get(0));
        rows = ClaimSql.rows(ps);
      }
      if (rows.isEmpty()) {
        rows = ClaimSql.read(c, batch);
      }
      if (!rows.isEmpty() && !ClaimSql.needsPausedClaim(batch.get(0), rows.get(0))) {
        return rows;
      }
    }
    List<ClaimRow> rows;
    try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
      ClaimSql.bindAttempts(ps, batch, 1);
      rows = ClaimSql.rows(ps);
    }
    if (rows.size() < batch.size()) {
      Set<String> won = new HashSet<>();
      rows.forEach(r -> won.add(r.name()));
      // H2 2.5 was seen to leave out of FINAL TABLE a row its MERGE wrote while racing another
      // MERGE; the token in the row read here still tells that the claim won
      rows.addAll(ClaimSql.read(c, batch.stream().filter(a -> !won.contains(a.name())).toList()));
    }
    return rows;
  }

  @Override
  boolean accepts(String url) {
    return url.startsWith("jdbc:h2:");
  }

  @Override
  boolean requiresUrl() {
    return false;
  }

  /**
   * File databases get {@code AUTO_SERVER=TRUE} (unless the URL sets it) so that several processes
   * on one machine can share the file; no URL means {@link #example}.
   */
  @Override
  String driverUrl(String url) {
    if (url == null || url.isBlank()) {
      url = example;
    }
    if (url.startsWith("jdbc:h2:file:") && !hasSetting(url, "AUTO_SERVER")) {
      return url + ";AUTO_SERVER=TRUE";
    }
    return url;
  }

  private static boolean hasSetting(String url, String setting) {
    return Arrays.stream(url.split(";"))
        .skip(1)
        .anyMatch(s -> s.toUpperCase(Locale.ROOT).startsWith(setting + "="));
  }

  /** H2 waits for a row lock at most the read timeout. */
  @Override
  Properties timeoutProperties(Duration connect, Duration read) {
    Properties p = new Properties();
    p.setProperty("LOCK_TIMEOUT", Long.toString(millis(read)));
    return p;
  }

  @Override
  Map<String, String> migrationPlaceholders() {
    return placeholders(
        datetimeType(),
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        "",
        "VARCHAR(16384)",
        "CREATE TRIGGER task_lock_keep_high_water BEFORE DELETE ON task_lock FOR EACH ROW CALL '"
            + H2HighWaterTrigger.class.getName()
            + "';");
  }

  @Override
  String datetimeType() {
    return "TIMESTAMP(3)";
  }

  @Override
  String displayName() {
    return "H2";
  }

  @Override
  int defaultPort() {
    return 9092;
  }

  @Override
  void prepare(String url) {
    H2Files.prepare(url);
  }

  @Override
  Duration openLockWait() {
    return OPEN_TIMEOUT;
  }

  @Override
  boolean locked(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && LOCKED.contains(s.getErrorCode())) {
        return true;
      }
    }
    return false;
  }

  @Override
  String localPath(String url) {
    var file = H2Files.databasePath(url);
    return file == null ? null : file.toString();
  }

  /** H2 migrates in the database this process has open. */
  @Override
  DataSource migrationSource(HikariDataSource pool, Supplier<DataSource> direct) {
    return pool;
  }

  /**
   * The pool's first connection joins the database the first connection opened, and keeps it open
   * once that one is closed; H2 has written its lock file and key by now: restrict them.
   */
  @Override
  void opened(HikariDataSource pool, String url) {
    try {
      pool.getConnection().close();
    } catch (SQLException e) {
      throw SqlSupport.failure("open", e); // open() closes the pool
    }
    H2Files.restrictFiles(H2Files.databasePath(url));
  }
}
