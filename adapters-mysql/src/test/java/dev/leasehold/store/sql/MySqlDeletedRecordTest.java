package dev.leasehold.store.sql;

/** The deleted-record cases on MariaDB configured as {@code mysql} (the insert-id claim). */
class MySqlDeletedRecordTest extends SqlDeletedRecordTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.mysqlOnMariaDb();
  }
}
