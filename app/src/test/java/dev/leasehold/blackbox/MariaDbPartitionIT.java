package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network partitions between daemons and MariaDB (a fresh database per test): see {@link
 * PartitionScenarios}.
 */
class MariaDbPartitionIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void aHolderCutOffStopsBeforeTheNextStartsAndAStoreCutOffCatchesUpOnce() {
    PartitionScenarios.holderCutOffThenStoreCutOff(
        box, box.closeAfter(SqlTestStore.mariadb()), 3306);
  }

  @Test
  void aClaimAnsweredAfterItsLeaseValidityDoesNotRunTheFiring() {
    PartitionScenarios.lateClaimAnswer(box, box.closeAfter(SqlTestStore.mariadb()), 3306);
  }
}
