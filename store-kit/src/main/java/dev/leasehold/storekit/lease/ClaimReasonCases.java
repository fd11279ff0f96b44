package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import org.junit.jupiter.api.Test;

/**
 * {@code tryClaim}: the same decision as {@code claim}, with the refusal's reason. {@code HELD}
 * when a run of an earlier firing holds the lease, {@code ALREADY_RUN} when the watermark is at or
 * past the firing, and {@code ALREADY_RUN} when both hold (such a firing can never be claimed
 * again). A store may leave the holder or the watermark out of a refusal; when it names them, they
 * are the ones stored.
 */
public abstract class ClaimReasonCases extends LeaseStoreCases {

  @Test
  void aFreeFiringIsWonWithItsLease() {
    String name = freshName();
    ClaimResult result = store.tryClaim(name, F1, "node-a", LONG);
    assertThat(result.kind()).isEqualTo(Kind.WON);
    Lease lease = result.leaseIfWon().orElseThrow();
    assertThat(lease.name()).isEqualTo(name);
    assertThat(lease.holder()).isEqualTo("node-a");
    assertThat(lease.fence()).isPositive();
    assertThat(store.inspect(name).orElseThrow().lastFire()).isEqualTo(F1);
    assertThat(store.release(lease)).isTrue();
  }

  @Test
  void aNewerFiringIsHeldByTheRunOfAnEarlierOne() {
    String name = freshName();
    store.claim(name, F1, "node-a", LONG).orElseThrow();
    ClaimResult result = newStore().tryClaim(name, F2, "node-b", LONG);
    assertThat(result.kind()).isEqualTo(Kind.HELD);
    assertThat(result.leaseIfWon()).isEmpty();
    assertThat(result.holder()).as("the holder, when the store names it").isIn("node-a", null);
    assertThat(result.watermark()).as("the watermark, when the store says").isIn(F1, null);
  }

  @Test
  void aLeaseTakenByAcquireHoldsAFirstFiring() {
    String name = freshName();
    store.acquire(name, "manual", LONG).orElseThrow();
    ClaimResult result = newStore().tryClaim(name, F1, "node-b", LONG);
    assertThat(result.kind()).isEqualTo(Kind.HELD);
    assertThat(result.holder()).isIn("manual", null);
    assertThat(result.watermark()).isNull();
  }

  @Test
  void aFiringClaimedBeforeIsAlreadyRunOnceReleased() {
    String name = freshName();
    store.release(store.claim(name, F2, "node-a", LONG).orElseThrow());
    LeaseStore late = newStore();
    for (var firing : new java.time.Instant[] {F2, F1}) {
      ClaimResult result = late.tryClaim(name, firing, "node-late", LONG);
      assertThat(result.kind()).as("firing %s", firing).isEqualTo(Kind.ALREADY_RUN);
      assertThat(result.watermark()).isIn(F2, null);
      assertThat(result.holder()).isNull();
    }
  }

  @Test
  void alreadyRunWinsOverHeldWhenBothHold() {
    String name = freshName();
    store.claim(name, F2, "node-a", LONG).orElseThrow();
    LeaseStore other = newStore();
    assertThat(other.tryClaim(name, F2, "node-b", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(other.tryClaim(name, F1, "node-b", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(other.tryClaim(name, F3, "node-b", LONG).kind()).isEqualTo(Kind.HELD);
  }

  @Test
  void aFiringFreeAgainAfterReleaseIsWonWithALargerFence() {
    String name = freshName();
    Lease first = store.claim(name, F1, "node-a", LONG).orElseThrow();
    store.release(first);
    ClaimResult result = newStore().tryClaim(name, F2, "node-b", LONG);
    assertThat(result.won()).isTrue();
    assertThat(result.lease().fence()).isGreaterThan(first.fence());
    assertThat(store.inspect(name).orElseThrow().currentHolder()).contains("node-b");
  }

  @Test
  void aFiringWonByTryClaimIsRefusedToClaim() {
    String name = freshName();
    Lease lease = store.tryClaim(name, F1, "node-a", LONG).leaseIfWon().orElseThrow();
    store.release(lease);
    assertThat(newStore().claim(name, F1, "node-b", LONG)).isEmpty();
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isPresent();
  }
}
