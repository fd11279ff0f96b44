package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.lease.RequestSignals;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/**
 * Everything that differs between the databases the SQL store runs on, one subclass per database:
 * {@link H2Dialect}, {@link MySqlDialect} (MariaDB and MySQL), {@link PostgresDialect}. A dialect
 * owns its claim statements (see {@code docs/stores/sql.md} for each and why it is atomic), its
 * session setup (driver, URL, timeouts, the UTC session) and its open-time quirks; nothing outside
 * these classes asks which database it is on.
 *
 * <p>The lease statements are SQL text fixed once per dialect (and per batch size), run through
 * JDBC prepared statements: a claim, a batch of claims, a renewal and a release are each <b>one
 * statement</b>, so each is atomic on its own in autocommit; every time that decides expiry is the
 * database's clock. A claim statement answers with rows of {@code task_lock}: the row as the claim
 * left it when the claim won (recognised by the claim's own random token), else the row as the
 * statement saw it, from which the caller tells "held" from "already run".
 */
abstract class SqlDialect {
  static final SqlDialect H2 = new H2Dialect();
  static final SqlDialect MYSQL = new MySqlDialect("mysql", SQLDialect.MYSQL, false);
  static final SqlDialect MARIADB = new MySqlDialect("mariadb", SQLDialect.MARIADB, true);
  static final SqlDialect POSTGRES = new PostgresDialect();

  /** The {@code store.type} names, each mapped to its dialect by {@link #forType}. */
  static final List<String> TYPES = List.of("h2", "mysql", "mariadb", "postgres", "postgresql");

  /** The name of this dialect's {@code store.type} (and of its pool). */
  final String type;

  /** jOOQ's dialect, for the statements jOOQ renders. */
  final SQLDialect jooq;

  final String driverClass;

  /** A URL of this database, for messages. */
  final String example;

  /**
   * Run on every new connection, so that {@code current_timestamp} is UTC whatever the server's,
   * the JVM's or the URL's time zone is: every replica computes lease expiry on one scale.
   */
  final String utcSessionSql;

  /** The database's clock, as SQL: UTC at millisecond precision, typed as the time columns. */
  final String now;

  final String release;
  final String renew;

  /** Reads the database's clock ({@code LeaseStore.storeTime}). */
  final String storeTime;

  private final Map<Integer, String> claimSql = new ConcurrentHashMap<>();
  private final IntFunction<String> render;

  /**
   * @param now the database's current time, as SQL
   * @param plusTtl the database's current time plus a bound number of milliseconds, as SQL
   * @param render the claim statement for a batch of the given size
   */
  SqlDialect(
      String type,
      SQLDialect jooq,
      String driverClass,
      String example,
      String utcSessionSql,
      String now,
      String plusTtl,
      IntFunction<String> render) {
    this.type = type;
    this.jooq = jooq;
    this.driverClass = driverClass;
    this.example = example;
    this.utcSessionSql = utcSessionSql;
    this.render = render;
    this.now = now;
    this.storeTime = "SELECT " + now;
    this.release =
        "UPDATE task_lock SET holder = NULL, token = NULL, lease_until = "
            + now
            + " WHERE lock_key = ? AND token = ?";
    this.renew =
        "UPDATE task_lock SET lease_until = "
            + plusTtl
            + " WHERE lock_key = ? AND token = ? AND pause_stop = 0 AND lease_until > "
            + now;
  }

  /** The dialect of a {@code store.type}, or {@code null} when the type is not a SQL store. */
  static SqlDialect forType(String type) {
    return switch (type == null ? "" : type.toLowerCase(Locale.ROOT)) {
      case "h2" -> H2;
      case "mysql" -> MYSQL;
      case "mariadb" -> MARIADB;
      case "postgres", "postgresql" -> POSTGRES;
      default -> null;
    };
  }

  /**
   * The database's own notification of new trigger requests, when it has one (PostgreSQL's {@code
   * LISTEN/NOTIFY}); each listener holds a connection of {@code pool}.
   */
  Optional<RequestSignals> requestSignals(HikariDataSource pool) {
    return Optional.empty();
  }

  // ---- claims

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

  // ---- session setup

  /** Whether {@code url} is a JDBC URL of this database. */
  abstract boolean accepts(String url);

  /** Whether {@code store.url} may be left out (the dialect then has a default). */
  boolean requiresUrl() {
    return true;
  }

  /** The URL the driver is given. */
  String driverUrl(String url) {
    return url;
  }

  /** Driver properties that bound connecting and every socket read (or lock wait). */
  abstract Properties timeoutProperties(Duration connect, Duration read);

  /** The driver properties of the store's pool: the timeouts, and whatever else the pool wants. */
  Properties poolProperties(Duration connect, Duration read) {
    return timeoutProperties(connect, read);
  }

  /**
   * What Flyway substitutes into the migration scripts: the column types, and the trigger that
   * keeps the fence and watermark of a deleted lease row ({@link SqlHighWater}).
   */
  abstract Map<String, String> migrationPlaceholders();

  /** The type of every time column: UTC wall time at millisecond precision. */
  abstract String datetimeType();

  static Map<String, String> placeholders(
      String datetime,
      String identity,
      String tableOptions,
      String longText,
      String highWaterTrigger) {
    return Map.of(
        "datetime",
        datetime,
        "identity",
        identity,
        "table_options",
        tableOptions,
        "long_text",
        longText,
        "high_water_trigger",
        highWaterTrigger);
  }

  /** The database as messages name it. */
  abstract String displayName();

  /** The port a network URL that names none connects to. */
  abstract int defaultPort();

  // ---- open-time quirks (defaults: a database server)

  /** Before the first connection: e.g. the files of an embedded database. */
  void prepare(String url) {}

  /**
   * How long the first connection keeps trying while {@link #locked} says the database is held by
   * another process.
   */
  Duration openLockWait() {
    return Duration.ZERO;
  }

  /** Whether a failed connection means another process holds the database (a lock that ages). */
  boolean locked(SQLException e) {
    return false;
  }

  /** Where a failed connection looked, when it is not a network address (an embedded file). */
  String localPath(String url) {
    return null;
  }

  /**
   * The connections a migration runs on: by default {@code direct}, connections of its own with a
   * read timeout long enough to wait for another process's migration lock.
   */
  DataSource migrationSource(HikariDataSource pool, Supplier<DataSource> direct) {
    return direct.get();
  }

  /**
   * After the schema is current, before the first connection closes: the pool has not necessarily
   * connected yet.
   */
  void opened(HikariDataSource pool, String url) {}

  static long millis(Duration d) {
    return Math.max(1, d.toMillis());
  }

  @Override
  public String toString() {
    return type;
  }
}
