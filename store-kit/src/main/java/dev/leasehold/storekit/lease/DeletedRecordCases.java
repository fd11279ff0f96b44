package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A lease record deleted by hand does not wedge its name (G6 and G1 across the delete): an operator
 * unlocks a job by deleting its lease record with the store's own client ({@code DEL}, {@code
 * deleteOne}, {@code etcdctl del}, {@code zkCli delete}). Afterwards a client that had won fences
 * before and a client that never saw the name both win new firings, with fences above every fence
 * given before the delete, and neither wins a firing that was already claimed.
 *
 * <p>Not part of {@link LeaseStoreContract}: each store says what its operators delete, through
 * {@link #deleteRecordByHand}. A store's test class:
 *
 * <pre>{@code
 * class RedisDeletedRecordTest extends DeletedRecordCases {
 *   protected StoreBackend createBackend() { return ...; }
 *   protected void deleteRecordByHand(String name) { ... DEL lh:{name}:meta ... }
 * }
 * }</pre>
 */
public abstract class DeletedRecordCases extends LeaseStoreCases {

  /**
   * Deletes the lease record of {@code name} as an operator would, with the store's own client (not
   * through {@link LeaseStore}): whatever of it exists (a store whose release deletes the lease key
   * may find nothing but its watermark and fence keys, which it leaves when they are kept apart).
   */
  protected abstract void deleteRecordByHand(String name) throws Exception;

  @Test
  void afterTheRecordIsDeletedBothClientsWinNewFiringsWithHigherFencesAndNoneTwice()
      throws Exception {
    String name = freshName();
    long highest = runFirings(store, name, F1, F2, F3);

    deleteRecordByHand(name);

    // a client that never saw the name: its fence cannot come from its own memory
    LeaseStore fresh = newStore();
    assertThat(fresh.claim(name, F3, "node-b", LONG)).as("a firing already run").isEmpty();
    assertThat(fresh.claim(name, F2, "node-b", LONG)).as("an older firing").isEmpty();
    Lease first = fresh.claim(name, F3.plusSeconds(60), "node-b", LONG).orElseThrow();
    assertThat(first.fence())
        .as("above the %d given before the delete", highest)
        .isGreaterThan(highest);
    assertThat(fresh.release(first)).isTrue();

    // the client that won before the delete goes on too
    assertThat(store.claim(name, F3.plusSeconds(60), "node-a", LONG)).isEmpty();
    Lease second = store.claim(name, F3.plusSeconds(120), "node-a", LONG).orElseThrow();
    assertThat(second.fence()).isGreaterThan(first.fence());
    assertThat(store.release(second)).isTrue();
  }

  @Test
  void aRecordDeletedTwiceStillGivesRisingFencesToEveryClient() throws Exception {
    String name = freshName();
    long highest = runFirings(store, name, F1, F2);
    deleteRecordByHand(name);
    long next = runFirings(store, name, F3);
    assertThat(next).isGreaterThan(highest);

    deleteRecordByHand(name);
    LeaseStore fresh = newStore();
    assertThat(fresh.claim(name, F3, "node-b", LONG)).as("a firing already run").isEmpty();
    Lease acquired = fresh.acquire(name, "node-b", LONG).orElseThrow();
    assertThat(acquired.fence()).isGreaterThan(next);
    assertThat(fresh.release(acquired)).isTrue();
    assertThat(store.claim(name, F3, "node-a", LONG)).as("an acquire moves no watermark").isEmpty();
    assertThat(runFirings(newStore(), name, F3.plusSeconds(60))).isGreaterThan(acquired.fence());
  }

  @Test
  void aRecordDeletedUnderALiveHolderIsTakenWithAHigherFenceAndTheOldHolderIsFencedOut()
      throws Exception {
    String name = freshName();
    long before = runFirings(store, name, F1);
    Lease stuck = store.claim(name, F2, "node-a", LONG).orElseThrow();
    assertThat(stuck.fence()).isGreaterThan(before);

    deleteRecordByHand(name);
    LeaseStore fresh = newStore();
    assertThat(fresh.claim(name, F2, "node-b", LONG)).as("the firing the holder runs").isEmpty();
    Lease taken = fresh.claim(name, F3, "node-b", LONG).orElseThrow();
    assertThat(taken.fence()).as("above the stuck holder's").isGreaterThan(stuck.fence());
    assertThat(store.renew(stuck, LONG)).as("the old holder's renewal").isFalse();
    assertThat(store.release(stuck)).isFalse();
    assertThat(fresh.release(taken)).isTrue();
  }

  /** Claims and releases each firing in turn; returns the last fence, checking that they rise. */
  private static long runFirings(LeaseStore client, String name, Instant... firings) {
    long last = 0;
    for (Instant firing : firings) {
      Lease lease = client.claim(name, firing, "node-a", LONG).orElseThrow();
      assertThat(lease.fence()).isGreaterThan(last);
      last = lease.fence();
      assertThat(client.release(lease)).isTrue();
    }
    return last;
  }
}
