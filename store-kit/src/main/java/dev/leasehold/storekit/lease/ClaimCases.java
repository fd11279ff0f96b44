package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Claims and the watermark (G1, G2): a firing is claimed once, ever; a late or older firing is
 * refused; {@code acquire} is exclusive with claims and leaves the watermark alone.
 */
public abstract class ClaimCases extends LeaseStoreCases {

  @Test
  void aFreshNameCanBeClaimed() {
    String name = freshName();
    Optional<Lease> lease = store.claim(name, F1, "node-a", LONG);
    assertThat(lease).isPresent();
    assertThat(lease.get().name()).isEqualTo(name);
    assertThat(lease.get().holder()).isEqualTo("node-a");
    assertThat(lease.get().token()).isNotBlank();
    assertThat(lease.get().fence()).isPositive();
    assertThat(lease.get().ttl()).isEqualTo(LONG);
  }

  @Test
  void aHeldFiringCannotBeClaimedAgain() {
    String name = freshName();
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
    assertThat(store.claim(name, F1, "node-b", LONG)).isEmpty();
    assertThat(newStore().claim(name, F1, "node-b", LONG)).isEmpty();
  }

  @Test
  void aNewerFiringIsRefusedWhileThePreviousRunStillHoldsTheLease() {
    String name = freshName();
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isEmpty();
  }

  @Test
  void aLateReplicaCannotClaimAFiringAlreadyRun() {
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    assertThat(newStore().claim(name, F1, "node-late", LONG)).isEmpty();
  }

  @Test
  void anOlderFiringIsRefusedAfterANewerOneRan() {
    String name = freshName();
    Lease lease = store.claim(name, F2, "node-a", LONG).orElseThrow();
    store.release(lease);
    assertThat(store.claim(name, F1, "node-b", LONG)).isEmpty();
  }

  @Test
  void theNextFiringCanBeClaimedOnceTheLeaseIsReleased() {
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isPresent();
  }

  @Test
  void firingsAreComparedAtMillisecondPrecision() {
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    assertThat(store.claim(name, F1.plusNanos(999_999), "node-a", LONG))
        .as("same millisecond as the watermark")
        .isEmpty();
    assertThat(store.claim(name, F1.plusMillis(1), "node-a", LONG)).isPresent();
  }

  @Test
  void firingsBeforeTheEpochAndFarInTheFutureWork() {
    String name = freshName();
    store.release(store.claim(name, Instant.parse("1969-07-20T20:17:00Z"), "a", LONG).get());
    assertThat(store.claim(name, Instant.parse("2100-01-01T00:00:00Z"), "a", LONG)).isPresent();
  }

  @Test
  void acquireIsExclusiveWithClaim() {
    String name = freshName();
    Lease claimed = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(newStore().acquire(name, "node-b", LONG)).isEmpty();
    store.release(claimed);
    Lease acquired = newStore().acquire(name, "node-b", LONG).orElseThrow();
    assertThat(store.claim(name, F2, "node-a", LONG)).isEmpty();
    store.release(acquired);
    assertThat(store.claim(name, F2, "node-a", LONG)).isPresent();
  }

  @Test
  void acquireDoesNotMoveTheWatermark() {
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    store.release(store.acquire(name, "manual", LONG).orElseThrow());
    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.lastFire()).isEqualTo(F1);
    assertThat(store.claim(name, F1, "node-a", LONG)).isEmpty();
    assertThat(store.claim(name, F2, "node-a", LONG)).isPresent();
  }

  @Test
  void acquireOnAFreshNameLeavesNoWatermark() {
    String name = freshName();
    store.release(store.acquire(name, "manual", LONG).orElseThrow());
    assertThat(store.inspect(name).orElseThrow().lastFire()).isNull();
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
  }
}
