package dev.leasehold.store.sql;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Creates and upgrades the store's tables with Flyway when a store is opened. Leasehold keeps its
 * own history table and its own script location, so it can share a database (or schema) with an
 * application that runs Flyway itself: neither sees the other's migrations.
 */
final class SqlMigrations {
  static final String HISTORY_TABLE = "leasehold_schema_history";
  static final String LOCATION = "classpath:leasehold/db/migration";

  private SqlMigrations() {}

  /**
   * Migrates to the latest version; a no-op when already there. Concurrent first opens by several
   * processes are serialized by Flyway's own lock on the database.
   */
  static void migrate(DataSource dataSource, SqlVendor vendor) {
    try {
      Flyway.configure(SqlMigrations.class.getClassLoader())
          .dataSource(dataSource)
          .table(HISTORY_TABLE)
          .locations(LOCATION)
          .placeholders(vendor.migrationPlaceholders())
          // a database that already holds the application's tables: start our history at 0
          .baselineOnMigrate(true)
          .baselineVersion("0")
          .load()
          .migrate();
    } catch (FlywayException e) {
      throw SqlSupport.failure("migrating the leasehold tables", e);
    }
  }
}
