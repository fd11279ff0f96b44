package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The deleted-record cases of a store whose fences cannot go back on their own (etcd revisions,
 * ZooKeeper zxids) but whose watermark lives in a record an operator can delete by hand, kept again
 * in a high-water record apart: the watermark comes back from it, with one warning on the claim
 * that restores it, a firing recorded as paused stays spent, and deleting only the lease (the
 * documented way to free a stuck lease) frees it without running its firing again.
 */
public abstract class WatermarkRestoreCases extends DeletedRecordCases {

  /** Deletes only the record that holds the watermark of {@code name}, with the store's client. */
  protected abstract void deleteWatermarkByHand(String name) throws Exception;

  /** Deletes only the lease of {@code name}, as the operations guide says to free a stuck lease. */
  protected abstract void deleteLeaseOnlyByHand(String name) throws Exception;

  /** The store's WARN lines logged since the test began. */
  protected abstract List<String> warnings();

  /** How the warning names the missing watermark record of {@code name}, e.g. "jobs/NAME". */
  protected abstract String watermarkRecord(String name);

  @Test
  void aDeletedWatermarkComesBackFromTheHighWaterRecordWithOneWarning() throws Exception {
    String name = freshName();
    Lease first = store.claim(name, F2, "node-a", LONG).orElseThrow();
    assertThat(store.release(first)).isTrue();

    deleteWatermarkByHand(name);

    LeaseStore fresh = newStore();
    ClaimResult again = fresh.tryClaim(name, F2, "node-b", LONG);
    assertThat(again.kind()).isEqualTo(ClaimResult.Kind.ALREADY_RUN);
    assertThat(again.watermark()).isEqualTo(F2);
    assertThat(fresh.claim(name, F1, "node-b", LONG)).as("an older firing").isEmpty();
    assertThat(warnings()).as("no warning for a refusal").isEmpty();

    Lease next = fresh.claim(name, F3, "node-b", LONG).orElseThrow();
    assertThat(next.fence()).isGreaterThan(first.fence());
    assertThat(fresh.inspect(name).orElseThrow().lastFire()).as("written back").isEqualTo(F3);
    assertThat(warnings())
        .singleElement()
        .asString()
        .contains("lease record of " + name + " was deleted by hand")
        .contains(watermarkRecord(name) + " was missing")
        .contains("highwater/" + name);
    assertThat(fresh.release(next)).isTrue();
  }

  @Test
  void aFiringRecordedAsPausedStaysSpentWhenTheWatermarkIsDeleted() throws Exception {
    String name = freshName();
    assertThat(store.release(store.claim(name, F1, "node-a", LONG).orElseThrow())).isTrue();
    pauses().pause(name, "operator", null, false);
    assertThat(store.tryClaim(name, F2, "node-a", LONG).kind()).isEqualTo(ClaimResult.Kind.PAUSED);
    assertThat(pauses().resume(name, false)).isTrue();

    deleteWatermarkByHand(name);

    assertThat(newStore().claim(name, F2, "node-b", LONG)).as("recorded as paused").isEmpty();
    assertThat(newStore().claim(name, F3, "node-b", LONG)).isPresent();
  }

  @Test
  void theDocumentedReleaseOfAStuckLeaseFreesItAndRunsNoFiringTwice() throws Exception {
    String name = freshName();
    Lease stuck = store.claim(name, F2, "node-a", LONG).orElseThrow();

    deleteLeaseOnlyByHand(name); // docs/operations.md, Releasing a stuck lease

    LeaseStore fresh = newStore();
    assertThat(fresh.claim(name, F2, "node-b", LONG)).as("the stuck holder's firing").isEmpty();
    Lease next = fresh.claim(name, F3, "node-b", LONG).orElseThrow();
    assertThat(next.fence()).isGreaterThan(stuck.fence());
    assertThat(store.renew(stuck, LONG)).isFalse();
    assertThat(fresh.release(next)).isTrue();
  }
}
