package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;

/** The SQL black-box scenarios on the real MariaDB server (a fresh database per test). */
class MariaDbBlackBoxIT extends SqlBlackBoxScenarios {
  @Override
  SqlTestStore freshStore() {
    return SqlTestStore.mariadb();
  }

  /**
   * Reload is the daemon's own code, the same on every store; what it asks of a store is what the
   * other scenarios ask of it. So three replicas reload here, on one server (and one on H2, {@link
   * H2ReloadIT}), not on each store. The audit trail is the app's code too: it is checked at the
   * end, on the same replicas.
   */
  @Test
  void sighupAddsRemovesAndChangesJobsOnEveryReplicaABadFileChangesNothingAndTheAuditSaysWho() {
    ReloadScenario.addRemoveChangeAndABadFile(box, box.closeAfter(freshStore()), 3, true);
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

  /** Heartbeat checks are the daemon's own code too: three replicas here, on one server. */
  @Test
  void aCheckPingedOnThreeReplicasIsMissedOnceNotRepeatedAndRecoversOnce() {
    CheckScenario.aCheckPingedOnThreeReplicasIsMissedOnceAndRecoversOnce(
        box, box.closeAfter(freshStore()));
  }
}
