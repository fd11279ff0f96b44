package dev.leasehold.store.sql;

/** The SQL claim statements and their checks on Postgres. */
class PostgresClaimTest extends SqlClaimTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.postgres();
  }
}
