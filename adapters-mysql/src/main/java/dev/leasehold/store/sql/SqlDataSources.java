package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;

/**
 * Builds the small connection pools the SQL store uses. Every connection runs in autocommit (each
 * lease operation is its own short transaction), at READ COMMITTED, with its session time zone set
 * to UTC, and with connect, validation and socket-read timeouts derived from the command timeout so
 * that a hung database makes a call fail instead of blocking forever.
 */
final class SqlDataSources {
  /** Hikari refuses timeouts below this. */
  private static final long MIN_TIMEOUT_MILLIS = 250;

  private SqlDataSources() {}

  /**
   * A pool that connects lazily: building it does no I/O, the first call connects.
   *
   * @param url the URL as the driver takes it ({@link SqlDialect#driverUrl})
   * @param timeout bound for obtaining a connection
   * @param readTimeout bound for each round trip
   */
  static HikariDataSource create(
      SqlDialect dialect,
      String url,
      String username,
      String password,
      Duration timeout,
      Duration readTimeout,
      int poolSize,
      String poolName) {
    long millis = Math.max(MIN_TIMEOUT_MILLIS, timeout.toMillis());
    HikariConfig config = new HikariConfig();
    config.setPoolName(poolName);
    config.setDriverClassName(dialect.driverClass);
    config.setJdbcUrl(url);
    config.setUsername(username);
    config.setPassword(password);
    config.setDataSourceProperties(dialect.poolProperties(timeout, readTimeout));
    config.setConnectionInitSql(dialect.utcSessionSql);
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setAutoCommit(true);
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(millis);
    config.setValidationTimeout(Math.max(MIN_TIMEOUT_MILLIS, millis / 2));
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }
}
