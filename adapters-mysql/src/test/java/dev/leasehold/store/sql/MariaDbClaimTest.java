package dev.leasehold.store.sql;

/** The SQL claim statements and their checks on MariaDb. */
class MariaDbClaimTest extends SqlClaimTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.mariaDb();
  }
}
