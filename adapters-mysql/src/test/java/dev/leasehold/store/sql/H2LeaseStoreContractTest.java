package dev.leasehold.store.sql;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract kit against embedded H2 (a fresh file, migrated database); each client has its own
 * pool.
 */
class H2LeaseStoreContractTest extends LeaseStoreContract {
  private static TestDatabase database;

  @BeforeAll
  static void createDatabase() {
    database = TestDatabase.h2().migrated();
  }

  @AfterAll
  static void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Override
  protected StoreBackend createBackend() {
    return database.newBackend();
  }
}
