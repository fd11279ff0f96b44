package dev.leasehold.store.sql;

/** The SQL store's own behaviour on MariaDb. */
class MariaDbSqlStoreTest extends SqlStoreTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.mariaDb();
  }
}
