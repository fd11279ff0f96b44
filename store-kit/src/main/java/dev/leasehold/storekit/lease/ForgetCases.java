package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import org.junit.jupiter.api.Test;

/**
 * Forgetting a lease record ({@link Forgetting#forget}): a free record goes from {@code inspect}
 * and {@code list}; a held or paused one is refused and kept; after a forget a claim of the same
 * name wins, from any client, with a fence above every fence given before (the high-water mark
 * stays). A store that cannot forget (no {@link dev.leasehold.core.store.StoreBackend#forgetting})
 * skips these cases.
 */
public abstract class ForgetCases extends LeaseStoreCases {

  private static boolean listed(LeaseStore client, String name) {
    return client.list().stream().anyMatch(s -> s.name().equals(name));
  }

  @Test
  void aFreeRecordIsForgottenAndGoneFromInspectAndList() {
    forgetting();
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    assertThat(listed(store, name)).isTrue();

    assertThat(newForgetting().forget(name)).isTrue();

    assertThat(store.inspect(name)).isEmpty();
    assertThat(listed(newStore(), name)).isFalse();
    assertThat(forgetting().forget(name)).as("a second forget finds nothing").isFalse();
  }

  @Test
  void anExpiredLeaseIsForgotten() {
    forgetting();
    String name = freshName();
    store.claim(name, F1, "node-a", SHORT).orElseThrow();
    eventually(EXPIRY_LIMIT, () -> !store.inspect(name).orElseThrow().held());
    assertThat(newForgetting().forget(name)).isTrue();
    assertThat(store.inspect(name)).isEmpty();
  }

  @Test
  void aHeldLeaseIsNotForgottenAndItsHolderKeepsIt() {
    forgetting();
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();

    assertThat(newForgetting().forget(name)).isFalse();

    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.held()).isTrue();
    assertThat(state.fence()).isEqualTo(lease.fence());
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isEmpty();
    assertThat(store.renew(lease, LONG)).isTrue();
    assertThat(store.release(lease)).isTrue();
  }

  @Test
  void aPausedRecordIsNotForgotten() {
    forgetting();
    pauses();
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    pauses().pause(name, "operator", "kept", false);
    try {
      assertThat(newForgetting().forget(name)).isFalse();
      assertThat(store.inspect(name).orElseThrow().paused()).isTrue();
    } finally {
      pauses().resume(name, false);
    }
  }

  @Test
  void aNameNeverLeasedIsNotForgotten() {
    forgetting();
    assertThat(forgetting().forget(freshName())).isFalse();
  }

  @Test
  void afterAForgetAClaimWinsWithAHigherFenceFromEveryClient() {
    forgetting();
    String name = freshName();
    long highest = 0;
    for (java.time.Instant firing : new java.time.Instant[] {F1, F2}) {
      Lease lease = store.claim(name, firing, "node-a", LONG).orElseThrow();
      highest = lease.fence();
      assertThat(store.release(lease)).isTrue();
    }

    assertThat(forgetting().forget(name)).isTrue();

    // a client that never saw the name: its fence cannot come from its own memory
    StoreBackend freshClient = newBackend();
    LeaseStore fresh = freshClient.leaseStore();
    Lease next = fresh.claim(name, F3, "node-b", LONG).orElseThrow();
    assertThat(next.fence())
        .as("above the %d given before the forget", highest)
        .isGreaterThan(highest);
    assertThat(fresh.release(next)).isTrue();

    assertThat(freshClient.forgetting().orElseThrow().forget(name)).isTrue();
    Lease again = store.acquire(name, "node-a", LONG).orElseThrow();
    assertThat(again.fence()).isGreaterThan(next.fence());
    assertThat(store.release(again)).isTrue();
  }
}
