package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network partitions between daemons and the shared Redis (a fresh key prefix per test): see {@link
 * PartitionScenarios}.
 */
class RedisPartitionIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void aHolderCutOffStopsBeforeTheNextStartsAndAStoreCutOffCatchesUpOnce() {
    PartitionScenarios.holderCutOffThenStoreCutOff(
        box, box.closeAfter(RedisTestStore.shared()), 6379);
  }

  @Test
  void aClaimAnsweredAfterItsLeaseValidityDoesNotRunTheFiring() {
    PartitionScenarios.lateClaimAnswer(box, box.closeAfter(RedisTestStore.shared()), 6379);
  }
}
