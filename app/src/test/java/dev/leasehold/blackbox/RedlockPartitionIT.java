package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network partitions between daemons and a Redlock of three {@code redis-server}s (each daemon
 * reaches every node through its own relay, all cut together): see {@link PartitionScenarios}.
 */
class RedlockPartitionIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  /**
   * Both partition scenarios at once on one Redlock: see {@link
   * PartitionScenarios#holderCutOffThenStoreCutOffBesideALateClaimAnswer}.
   */
  @Test
  void aHolderCutOffStopsBeforeTheNextStartsAStoreCutOffCatchesUpOnceAndALateAnswerDoesNotRun() {
    RedlockTestStore store = box.closeAfter(RedlockTestStore.start(box));
    PartitionScenarios.holderCutOffThenStoreCutOffBesideALateClaimAnswer(box, store, store.ports());
  }
}
