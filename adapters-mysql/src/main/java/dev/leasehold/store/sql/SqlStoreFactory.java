package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreOption;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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

  static final int MAX_POOL_SIZE = 200;

  /** The store option that sets the pool size. */
  static final StoreOption<Integer> POOL_SIZE_OPTION =
      StoreOption.wholeNumber(
          "pool-size",
          "",
          1,
          MAX_POOL_SIZE,
          POOL_SIZE,
          "Connections per opened store, shared by the lease store and the execution log.");

  /** A migration may wait this long for another process's migration lock. */
  private static final Duration MIGRATION_TIMEOUT = Duration.ofSeconds(60);

  static {
    // before any H2 class loads: H2 reads this once
    H2Files.bindToLoopback();
  }

  @Override
  public Set<String> types() {
    return new LinkedHashSet<>(SqlDialect.TYPES);
  }

  @Override
  public List<StoreOption<?>> options() {
    return List.of(POOL_SIZE_OPTION);
  }

  /** The embedded H2 database is the store of a configuration that names none. */
  @Override
  public String defaultType() {
    return "h2";
  }

  @Override
  public String defaultUrl(String type) {
    // a database that needs no URL (the embedded one) opens its example
    SqlDialect dialect = SqlDialect.forType(type);
    return dialect == null || dialect.requiresUrl() ? null : dialect.example;
  }

  @Override
  public Map<String, String> logLevels() {
    return Map.of("org.flywaydb", "WARN", "org.jooq", "WARN", "com.zaxxer.hikari", "WARN");
  }

  @Override
  public Set<String> driverPackages() {
    return Set.of(
        "org.jooq", "org.flywaydb", "com.zaxxer.hikari", "org.h2", "org.mariadb", "org.postgresql");
  }

  /**
   * An embedded H2 database decides expiry on this process's own clock, in milliseconds: the
   * self-check waits for {@link StoreSelfCheck#SHORTEST_TTL} there instead of {@link
   * StoreSelfCheck#SHORT_TTL}. A server (H2 over TCP included) keeps the longer one.
   */
  @Override
  public Duration selfCheckTtl(StoreSettings settings) {
    String url = settings.url();
    boolean embedded =
        "h2".equals(settings.type())
            && url != null
            && (url.startsWith("jdbc:h2:file:") || url.startsWith("jdbc:h2:mem:"));
    return embedded ? StoreSelfCheck.SHORTEST_TTL : StoreSelfCheck.SHORT_TTL;
  }

  @Override
  public String validate(StoreSettings settings) {
    SqlDialect dialect = SqlDialect.forType(settings.type());
    if (dialect == null) {
      return "store.type: expected one of " + SqlDialect.TYPES + ", got " + settings.type();
    }
    if (settings.commandTimeout().isNegative() || settings.commandTimeout().isZero()) {
      return "store.command-timeout: must be positive, got " + settings.commandTimeout();
    }
    String options = StoreOption.problem(options(), settings);
    if (options != null) {
      return options;
    }
    String url = settings.url();
    if (url == null || url.isBlank()) {
      return !dialect.requiresUrl()
          ? null
          : "store.url: required for store type " + settings.type() + ", e.g. " + dialect.example;
    }
    if (!dialect.accepts(url)) {
      return "store.url: store type "
          + settings.type()
          + " expects "
          + dialect.example
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
    SqlDialect dialect = SqlDialect.forType(settings.type());
    String url = dialect.driverUrl(settings.url());
    Duration timeout = settings.commandTimeout();
    dialect.prepare(url);
    // the first connection goes straight through the driver: a refused connection or a wrong
    // password is reported at once with its real reason. It stays open until the pool has its
    // own, so an H2 file is opened once per start (the pool's connections join the open database)
    Duration lockWait = dialect.openLockWait();
    Connection first =
        SqlConnections.open(
            dialect,
            url,
            settings,
            SqlConnections.direct(dialect, url, settings, timeout, timeout),
            timeout,
            lockWait);
    HikariDataSource pool = null;
    try {
      // a current schema costs one query; Flyway loads only when it has work
      boolean current = SqlMigrations.isCurrent(first);
      pool = pool(dialect, url, settings, timeout, timeout, poolSize(settings), dialect.type);
      if (!current) {
        SqlMigrations.migrate(
            dialect.migrationSource(
                pool,
                () ->
                    SqlConnections.direct(
                        dialect, url, settings, timeout, longer(timeout, MIGRATION_TIMEOUT))),
            dialect);
      }
      dialect.opened(pool, url);
      SqlStoreBackend backend = new SqlStoreBackend(pool, dialect);
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
    return POOL_SIZE_OPTION.problem(settings) == null ? POOL_SIZE_OPTION.value(settings) : 0;
  }

  private static Duration longer(Duration a, Duration b) {
    return a.compareTo(b) > 0 ? a : b;
  }

  static HikariDataSource pool(
      SqlDialect dialect, StoreSettings settings, Duration readTimeout, int size, String name) {
    Duration timeout = settings.commandTimeout();
    return pool(
        dialect, dialect.driverUrl(settings.url()), settings, timeout, readTimeout, size, name);
  }

  private static HikariDataSource pool(
      SqlDialect dialect,
      String driverUrl,
      StoreSettings settings,
      Duration connectTimeout,
      Duration readTimeout,
      int size,
      String name) {
    return SqlDataSources.create(
        dialect,
        driverUrl,
        settings.username(),
        settings.password(),
        connectTimeout,
        readTimeout,
        size,
        "leasehold-" + name);
  }
}
