package dev.leasehold.store.sql;

/** The SQL store's own behaviour on H2. */
class H2SqlStoreTest extends SqlStoreTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.h2();
  }
}
