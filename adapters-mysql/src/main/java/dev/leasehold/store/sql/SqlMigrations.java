package dev.leasehold.store.sql;

import dev.leasehold.core.lease.LeaseStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and upgrades the store's tables with Flyway when a store is opened. Leasehold keeps its
 * own history table and its own script location, so it can share a database (or schema) with an
 * application that runs Flyway itself: neither sees the other's migrations.
 */
final class SqlMigrations {
  private static final Logger log = LoggerFactory.getLogger(SqlMigrations.class);
  static final String HISTORY_TABLE = "leasehold_schema_history";
  static final String LOCATION = "classpath:leasehold/db/migration";

  /** The version of the newest script under {@link #LOCATION}. */
  static final String LATEST_VERSION = "7";

  private SqlMigrations() {}

  /** Attempts before a failing migration is reported. */
  private static final int ATTEMPTS = 5;

  /**
   * Whether the schema is already at {@link #LATEST_VERSION}: one query on Flyway's history table,
   * so that opening a current store loads and runs none of Flyway. Any failure of the query (no
   * history table yet, an older layout) answers {@code false}, and {@link #migrate} decides.
   *
   * @throws LeaseStoreException when the database cannot be reached at all
   */
  static boolean isCurrent(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      return isCurrent(c);
    } catch (SQLException e) {
      throw new LeaseStoreException("SQL store: cannot connect: " + SqlSupport.describe(e), e);
    }
  }

  /** {@link #isCurrent(DataSource)} on a connection the caller holds (and closes). */
  static boolean isCurrent(Connection c) {
    try {
      String q = c.getMetaData().getIdentifierQuoteString();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT COUNT(*) FROM %s%s%s WHERE %sversion%s = ? AND %ssuccess%s = ?"
                  .formatted(q, HISTORY_TABLE, q, q, q, q, q))) {
        ps.setString(1, LATEST_VERSION);
        ps.setBoolean(2, true);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() && rs.getLong(1) == 1;
        }
      }
    } catch (SQLException e) {
      log.debug("schema not known to be current, migrating: {}", e.getMessage());
      return false;
    }
  }

  /**
   * Migrates to the latest version; a no-op when already there. Flyway serializes the migrations
   * themselves with a lock on the database, but two processes that both find no history table can
   * race to create it (the loser sees a half-made table); a failed attempt is therefore retried
   * after a short pause, by when the winner has finished and there is nothing left to do. The
   * caller has already connected once: an unreachable database was reported before this.
   */
  static void migrate(DataSource dataSource, SqlDialect dialect) {
    for (int attempt = 1; ; attempt++) {
      try {
        attempt(dataSource, dialect);
        return;
      } catch (FlywayException e) {
        if (attempt == ATTEMPTS) {
          throw SqlSupport.failure("migrating the leasehold tables", e);
        }
        log.debug("migration attempt {} failed, retrying: {}", attempt, e.getMessage());
        pause(attempt);
      }
    }
  }

  private static void attempt(DataSource dataSource, SqlDialect dialect) {
    Flyway.configure(SqlMigrations.class.getClassLoader())
        .dataSource(dataSource)
        .table(HISTORY_TABLE)
        .locations(LOCATION)
        .placeholders(dialect.migrationPlaceholders())
        // a database that already holds the application's tables: start our history at 0
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(100L * attempt + ThreadLocalRandom.current().nextLong(100));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseStoreException("SQL store: interrupted while migrating", e);
    }
  }
}
