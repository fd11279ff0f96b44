package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
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
  /** Connections per opened store: claims are one short statement each. */
  static final int POOL_SIZE = 5;

  /** A migration may wait this long for another process's migration lock. */
  private static final Duration MIGRATION_TIMEOUT = Duration.ofSeconds(60);

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
    Duration timeout = settings.commandTimeout();
    Duration migrationRead = timeout.compareTo(MIGRATION_TIMEOUT) > 0 ? timeout : MIGRATION_TIMEOUT;
    try (HikariDataSource migration = pool(vendor, settings, migrationRead, 2, "migration")) {
      SqlMigrations.migrate(migration, vendor);
    }
    HikariDataSource pool =
        pool(vendor, settings, timeout, POOL_SIZE, vendor.name().toLowerCase(Locale.ROOT));
    return new SqlStoreBackend(pool, vendor);
  }

  static HikariDataSource pool(
      SqlVendor vendor, StoreSettings settings, Duration readTimeout, int size, String name) {
    return SqlDataSources.create(
        vendor,
        vendor.driverUrl(settings.url()),
        settings.username(),
        settings.password(),
        settings.commandTimeout(),
        readTimeout,
        size,
        "leasehold-" + name);
  }
}
