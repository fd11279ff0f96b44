package dev.leasehold.blackbox;

/** The SQL black-box scenarios on the real MariaDB server (a fresh database per test). */
class MariaDbBlackBoxIT extends SqlBlackBoxScenarios {
  @Override
  SqlTestStore freshStore() {
    return SqlTestStore.mariadb();
  }
}
