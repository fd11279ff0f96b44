package dev.leasehold.store.sql;

/** The deleted-record cases on MariaDB (a fresh database). */
class MariaDbDeletedRecordTest extends SqlDeletedRecordTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.mariaDb();
  }
}
