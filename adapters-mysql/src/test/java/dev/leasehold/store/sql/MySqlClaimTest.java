package dev.leasehold.store.sql;

/** The SQL claim statements and their checks on MySql. */
class MySqlClaimTest extends SqlClaimTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.mysqlOnMariaDb();
  }
}
