package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network partitions between daemons and PostgreSQL (a fresh schema per test): see {@link
 * PartitionScenarios}.
 */
class PostgresPartitionIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void aHolderCutOffStopsBeforeTheNextStartsAndAStoreCutOffCatchesUpOnce() {
    PartitionScenarios.holderCutOffThenStoreCutOff(
        box, box.closeAfter(SqlTestStore.postgres()), 5432);
  }

  @Test
  void aClaimAnsweredAfterItsLeaseValidityDoesNotRunTheFiring() {
    PartitionScenarios.lateClaimAnswer(box, box.closeAfter(SqlTestStore.postgres()), 5432);
  }
}
