package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the SQL store: {@code store.type} {@code h2} (the default, embedded, {@code store.url}
 * optional), {@code mysql}/{@code mariadb} (MariaDB driver) or {@code postgres}/{@code postgresql};
 * {@code store.url} is a JDBC URL. {@link #open} connects once through the driver, checks the
 * schema (migrating it when needed), then hands out one small pool shared by the lease store and
 * the execution log.
 */
public final class SqlStoreFactory implements StoreFactory {
  private static final Logger log = LoggerFactory.getLogger(SqlStoreFactory.class);

  /**
   * Connections per opened store unless {@code store.options.pool-size} says otherwise: every lease
   * operation is one short statement, and coinciding claims go out as one batch statement.
   */
  static final int POOL_SIZE = 10;

  /** The store option that sets the pool size. */
  static final String POOL_SIZE_OPTION = "pool-size";

  static final int MAX_POOL_SIZE = 200;

  /** A migration may wait this long for another process's migration lock. */
  private static final Duration MIGRATION_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long the first connection to an H2 file keeps trying while the file is locked: after a
   * process died without closing it, or right after another process closed it, H2 refuses until the
   * stale {@code .lock.db} is old enough to take over. Only the first connection waits this long;
   * the pool's wait and H2's {@code LOCK_TIMEOUT} stay the command timeout.
   */
  private static final Duration H2_OPEN_TIMEOUT = Duration.ofSeconds(30);

  static {
    // before any H2 class loads: H2 reads this once
    H2Files.bindToLoopback();
  }

  @Override
  public Set<String> types() {
    return new LinkedHashSet<>(SqlVendor.TYPES);
  }

  @Override
  public String validate(StoreSettings settings) {
    SqlVendor vendor = SqlVendor.forType(settings.type());
    if (vendor == null) {
      return "store.type: expected one of " + SqlVendor.TYPES + ", got " + settings.type();
    }
    if (settings.commandTimeout().isNegative() || settings.commandTimeout().isZero()) {
      return "store.command-timeout: must be positive, got " + settings.commandTimeout();
    }
    String size = settings.options().get(POOL_SIZE_OPTION);
    if (size != null && poolSize(settings) == 0) {
      return "store.options."
          + POOL_SIZE_OPTION
          + ": expected a whole number from 1 to "
          + MAX_POOL_SIZE
          + ", got "
          + size;
    }
    String url = settings.url();
    if (url == null || url.isBlank()) {
      return vendor == SqlVendor.H2
          ? null
          : "store.url: required for store type " + settings.type() + ", e.g. " + vendor.example;
    }
    if (!vendor.accepts(url)) {
      return "store.url: store type "
          + settings.type()
          + " expects "
          + vendor.example
          + ", got "
          + Redaction.redactUrl(url);
    }
    return null;
  }

  /**
   * Migrates the schema and opens the pool.
   *
   * @throws IllegalArgumentException when {@link #validate} finds a problem
   * @throws dev.leasehold.core.lease.LeaseStoreException when the database cannot be reached or
   *     migrated
   */
  @Override
  public StoreBackend open(StoreSettings settings) {
    String problem = validate(settings);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    SqlVendor vendor = SqlVendor.forType(settings.type());
    String url = vendor.driverUrl(settings.url());
    Duration timeout = settings.commandTimeout();
    if (vendor == SqlVendor.H2) {
      H2Files.prepare(url);
    }
    // the first connection goes straight through the driver: a refused connection or a wrong
    // password is reported at once with its real reason. It stays open until the pool has its
    // own, so an H2 file is opened once per start (the pool's connections join the open database)
    Duration lockWait = vendor == SqlVendor.H2 ? H2_OPEN_TIMEOUT : Duration.ZERO;
    Connection first =
        SqlConnections.open(
            vendor,
            url,
            settings,
            SqlConnections.direct(vendor, url, settings, timeout, timeout),
            timeout,
            lockWait);
    HikariDataSource pool = null;
    try {
      // a current schema costs one query; Flyway loads only when it has work
      boolean current = SqlMigrations.isCurrent(first);
      pool =
          pool(
              vendor,
              url,
              settings,
              timeout,
              timeout,
              poolSize(settings),
              vendor.name().toLowerCase(Locale.ROOT));
      if (!current) {
        // H2 migrates in the database this process has open; a server gets its own connections
        // with a read timeout long enough to wait for another process's migration lock
        SqlMigrations.migrate(
            vendor == SqlVendor.H2
                ? pool
                : SqlConnections.direct(
                    vendor, url, settings, timeout, longer(timeout, MIGRATION_TIMEOUT)),
            vendor);
      }
      if (vendor == SqlVendor.H2) {
        keepOpenAndRestrict(pool, url);
      }
      SqlStoreBackend backend = new SqlStoreBackend(pool, vendor);
      pool = null; // the backend owns it now
      return backend;
    } finally {
      if (pool != null) {
        pool.close();
      }
      // after the pool has its own connection: an H2 database stays open for the pool
      try {
        first.close();
      } catch (SQLException e) {
        // the pool does not need it; the driver gives the connection up either way
        log.warn("SQL store: closing the first connection failed: {}", e.getMessage());
      }
    }
  }

  /** The configured pool size, {@link #POOL_SIZE} when not set, 0 when not a valid size. */
  static int poolSize(StoreSettings settings) {
    String text = settings.options().get(POOL_SIZE_OPTION);
    if (text == null) {
      return POOL_SIZE;
    }
    try {
      int size = Integer.parseInt(text.strip());
      return size >= 1 && size <= MAX_POOL_SIZE ? size : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The pool's first connection joins the database the first connection opened, and keeps it open
   * once that one is closed; H2 has written its lock file and key by now: restrict them.
   */
  private static void keepOpenAndRestrict(HikariDataSource pool, String url) {
    try {
      pool.getConnection().close();
    } catch (SQLException e) {
      throw SqlSupport.failure("open", e); // open() closes the pool
    }
    H2Files.restrictFiles(H2Files.databasePath(url));
  }

  private static Duration longer(Duration a, Duration b) {
    return a.compareTo(b) > 0 ? a : b;
  }

  static HikariDataSource pool(
      SqlVendor vendor, StoreSettings settings, Duration readTimeout, int size, String name) {
    Duration timeout = settings.commandTimeout();
    return pool(
        vendor, vendor.driverUrl(settings.url()), settings, timeout, readTimeout, size, name);
  }

  private static HikariDataSource pool(
      SqlVendor vendor,
      String driverUrl,
      StoreSettings settings,
      Duration connectTimeout,
      Duration readTimeout,
      int size,
      String name) {
    return SqlDataSources.create(
        vendor,
        driverUrl,
        settings.username(),
        settings.password(),
        connectTimeout,
        readTimeout,
        size,
        "leasehold-" + name);
  }
}
