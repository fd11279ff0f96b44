package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;

/** The SQL black-box scenarios on the real MariaDB server (a fresh database per test). */
class MariaDbBlackBoxIT extends SqlBlackBoxScenarios {
  @Override
  SqlTestStore freshStore() {
    return SqlTestStore.mariadb();
  }

  @Test
  void aDeletedLeaseRowDoesNotWedgeTheJob() {
    Scenarios.aDeletedLeaseRecordDoesNotWedgeTheJob(box, box.closeAfter(freshStore()));
  }

  @Test
  void aJobNeverOutlivesItsLeaseWhenItsDaemonStallsOrDies() {
    Scenarios.aJobNeverOutlivesItsLease(box, box.closeAfter(freshStore()));
  }

  /** Also the group and jitter scenario, on the same daemons ({@link GroupJitterScenario}). */
  @Test
  void aSeededHistoryIsPrunedWhileClaimsGoOnRunsKeepTheirOutputAndFailuresNotifyOnce()
      throws Exception {
    HistoryScenarios.prunedWhileClaimsGoOnOutputKeptAndFailuresNotifiedOnce(
        box, box.closeAfter(freshStore()));
  }

  @Test
  void failedRunsAreRetriedOnceOnAnyReplicaWithRisingFencesAndNotifiedOnce() {
    RetryScenario.failedRunsAreRetriedOnceOnAnyReplicaAndNotifiedOnce(
        box, box.closeAfter(freshStore()));
  }
}
