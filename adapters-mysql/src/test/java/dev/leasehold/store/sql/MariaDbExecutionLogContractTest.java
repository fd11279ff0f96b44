package dev.leasehold.store.sql;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.job.ExecutionLogContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The history kit against MariaDb (a fresh, migrated database); each client has its own pool. */
class MariaDbExecutionLogContractTest extends ExecutionLogContract {
  private static TestDatabase database;

  @BeforeAll
  static void createDatabase() {
    database = TestDatabase.mariaDb().migrated();
  }

  @AfterAll
  static void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Override
  protected StoreBackend createBackend() {
    return database.open();
  }
}
