package dev.leasehold.blackbox;

/** The SQL black-box scenarios on the real PostgreSQL server (a fresh schema per test). */
class PostgresBlackBoxIT extends SqlBlackBoxScenarios {
  @Override
  SqlTestStore freshStore() {
    return SqlTestStore.postgres();
  }
}
