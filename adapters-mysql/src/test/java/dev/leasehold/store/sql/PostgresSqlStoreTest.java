package dev.leasehold.store.sql;

/** The SQL store's own behaviour on Postgres. */
class PostgresSqlStoreTest extends SqlStoreTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.postgres();
  }
}
