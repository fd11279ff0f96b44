package dev.leasehold.store.sql;

/** The SQL claim statements and their checks on H2. */
class H2ClaimTest extends SqlClaimTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.h2();
  }
}
