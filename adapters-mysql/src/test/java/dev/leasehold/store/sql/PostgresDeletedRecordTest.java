package dev.leasehold.store.sql;

/** The deleted-record cases on PostgreSQL (a fresh schema). */
class PostgresDeletedRecordTest extends SqlDeletedRecordTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.postgres();
  }
}
