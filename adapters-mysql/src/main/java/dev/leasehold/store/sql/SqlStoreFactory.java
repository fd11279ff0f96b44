package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Opens the SQL store: {@code store.type} {@code h2} (the default, embedded, {@code store.url}
 * optional), {@code mysql}/{@code mariadb} (MariaDB driver) or {@code postgres}/{@code postgresql};
 * {@code store.url} is a JDBC URL. {@link #open} runs the migrations, then hands out one small pool
 * shared by the lease store and the execution log.
 */
public final class SqlStoreFactory implements StoreFactory {
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
   * How long opening an H2 file may take: after a process died without closing it, H2 waits a few
   * seconds until the stale {@code .lock.db} is old enough to take over.
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
    Duration migrationRead = longer(timeout, MIGRATION_TIMEOUT);
    Duration migrationConnect = vendor == SqlVendor.H2 ? longer(timeout, H2_OPEN_TIMEOUT) : timeout;
    if (vendor == SqlVendor.H2) {
      H2Files.prepare(url);
    }
    try (HikariDataSource migration =
        pool(vendor, url, settings, migrationConnect, migrationRead, 2, "migration")) {
      // a current schema costs one query; Flyway loads only when it has work
      if (!SqlMigrations.isCurrent(migration)) {
        SqlMigrations.migrate(migration, vendor);
      }
    }
    HikariDataSource pool =
        pool(
            vendor,
            url,
            settings,
            timeout,
            timeout,
            poolSize(settings),
            vendor.name().toLowerCase(Locale.ROOT));
    if (vendor == SqlVendor.H2) {
      keepOpenAndRestrict(pool, url);
    }
    return new SqlStoreBackend(pool, vendor);
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
   * The migration pool's close closed the H2 database (and deleted its lock file); the first
   * connection of the store's pool opens it again and H2 writes a new lock file and key: restrict
   * them now rather than whenever the pool happens to connect.
   */
  private static void keepOpenAndRestrict(HikariDataSource pool, String url) {
    try {
      pool.getConnection().close();
    } catch (SQLException e) {
      pool.close();
      throw SqlSupport.failure("open", new IllegalStateException(e.getMessage(), e));
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
