package dev.leasehold.store.sql;

/** The deleted-record cases on embedded H2 (a fresh file). */
class H2DeletedRecordTest extends SqlDeletedRecordTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.h2();
  }
}
