package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import org.junit.jupiter.api.Test;

/**
 * Release by token only (G7): a wrong, stale or released token neither renews nor frees a lease;
 * release keeps the watermark and the fence.
 */
public abstract class ReleaseCases extends LeaseStoreCases {

  @Test
  void renewAndReleaseWithAWrongTokenAreRefused() {
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    Lease forged = new Lease(name, "node-a", LeaseArguments.newToken(), lease.fence(), LONG, null);
    assertThat(newStore().renew(forged, LONG)).isFalse();
    assertThat(newStore().release(forged)).isFalse();
    assertThat(store.inspect(name).orElseThrow().currentHolder()).contains("node-a");
    assertThat(store.renew(lease, LONG)).isTrue();
  }

  @Test
  void anExpiredLeaseCannotBeRenewedOrReleasedAfterSomeoneElseTookIt() {
    String name = freshName();
    Lease stale = store.acquire(name, "node-paused", SHORT).orElseThrow();
    LeaseStore other = newStore();
    Lease[] taken = new Lease[1];
    eventually(
        EXPIRY_LIMIT,
        () -> {
          taken[0] = other.acquire(name, "node-b", LONG).orElse(null);
          return taken[0] != null;
        });
    assertThat(store.renew(stale, LONG)).isFalse();
    assertThat(store.release(stale)).isFalse();
    assertThat(other.inspect(name).orElseThrow().currentHolder()).contains("node-b");
    assertThat(other.renew(taken[0], LONG)).isTrue();
  }

  @Test
  void releaseFreesTheLeaseButKeepsWatermarkAndFence() {
    String name = freshName();
    Lease lease = store.claim(name, F2, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.held()).isFalse();
    assertThat(state.currentHolder()).isEmpty();
    assertThat(state.lastFire()).isEqualTo(F2);
    assertThat(state.fence()).isEqualTo(lease.fence());
    assertThat(store.acquire(name, "node-b", LONG)).isPresent();
  }

  @Test
  void releasingTwiceIsRefusedTheSecondTime() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    assertThat(store.release(lease)).isFalse();
    assertThat(store.renew(lease, LONG)).isFalse();
  }

  @Test
  void aReleasedTokenCannotReleaseTheNextHolder() {
    String name = freshName();
    Lease first = store.acquire(name, "node-a", LONG).orElseThrow();
    store.release(first);
    Lease second = newStore().acquire(name, "node-b", LONG).orElseThrow();
    assertThat(store.release(first)).isFalse();
    assertThat(store.inspect(name).orElseThrow().currentHolder()).contains("node-b");
    assertThat(store.release(second)).isTrue();
  }

  @Test
  void renewAndReleaseOfANeverLeasedNameAreRefused() {
    Lease ghost = new Lease(freshName(), "node-a", LeaseArguments.newToken(), 1, LONG, null);
    assertThat(store.renew(ghost, LONG)).isFalse();
    assertThat(store.release(ghost)).isFalse();
  }
}
