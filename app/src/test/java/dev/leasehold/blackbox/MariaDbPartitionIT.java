package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network partitions between daemons and MariaDB (a fresh database per test): see {@link
 * PartitionScenarios}.
 */
class MariaDbPartitionIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  /**
   * Both partition scenarios at once on one store: see {@link
   * PartitionScenarios#holderCutOffThenStoreCutOffBesideALateClaimAnswer}.
   */
  @Test
  void aHolderCutOffStopsBeforeTheNextStartsAStoreCutOffCatchesUpOnceAndALateAnswerDoesNotRun() {
    PartitionScenarios.holderCutOffThenStoreCutOffBesideALateClaimAnswer(
        box, box.closeAfter(SqlTestStore.mariadb()), 3306);
  }
}
