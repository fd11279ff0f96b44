package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.Pause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A cluster-wide pause, decided in the claim's own atomic step ({@link Pauses#pause}): once {@code
 * pause} has returned, no client wins a claim of the name; each firing newer than the watermark is
 * answered {@code PAUSED} to exactly one claimant (the one that records it) and {@code ALREADY_RUN}
 * to the others; a pause with stop refuses renewals; {@code resume} ends it, and {@code resume}
 * with catch-up makes the latest firing recorded as paused, and only it, claimable once more. Every
 * store of this repository keeps pauses; a store that does not (no {@link
 * dev.leasehold.core.store.StoreBackend#pauses}) skips these cases.
 */
public abstract class PauseCases extends LeaseStoreCases {

  /** Runs the test only on stores that keep pauses. */
  private void pausing() {
    pauses();
  }

  @Test
  void aPausedFiringIsRecordedByOneClaimantAndRunByNone() {
    pausing();
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    Pause pause = newPauses().pause(name, "ops", "maintenance", false);
    assertThat(pause.by()).isEqualTo("ops");
    assertThat(pause.reason()).isEqualTo("maintenance");
    assertThat(pause.since()).isNotNull();

    ClaimResult first = store.tryClaim(name, F2, "node-a", LONG);
    assertThat(first.kind()).isEqualTo(Kind.PAUSED);
    assertThat(first.watermark()).isEqualTo(F2);
    assertThat(first.leaseIfWon()).isEmpty();
    ClaimResult second = newStore().tryClaim(name, F2, "node-b", LONG);
    assertThat(second.kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(newStore().claim(name, F3, "node-b", LONG)).isEmpty();

    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.held()).as("a paused claim starts no lease").isFalse();
    assertThat(state.lastFire()).isEqualTo(F3);
    assertThat(state.pause()).isNotNull();
    assertThat(state.pause().by()).isEqualTo("ops");
    assertThat(state.pause().reason()).isEqualTo("maintenance");
    assertThat(state.pause().stopRunning()).isFalse();
  }

  @Test
  void aNameNeverClaimedCanBePausedAndItsFirstFiringIsNotRun() {
    pausing();
    String name = freshName();
    pauses().pause(name, "ops", null, false);
    assertThat(store.inspect(name).orElseThrow().pause().reason()).isNull();
    assertThat(newStore().tryClaim(name, F1, "node-a", LONG).kind()).isEqualTo(Kind.PAUSED);
    assertThat(store.list())
        .filteredOn(s -> s.name().equals(name))
        .singleElement()
        .satisfies(s -> assertThat(s.paused()).isTrue());
  }

  @Test
  void aPausedFiringIsRecordedWhileARunHoldsTheLeaseAndThatRunKeepsIt() {
    pausing();
    String name = freshName();
    Lease running = store.claim(name, F1, "node-a", LONG).orElseThrow();
    newPauses().pause(name, "ops", null, false);
    assertThat(newStore().tryClaim(name, F2, "node-b", LONG).kind()).isEqualTo(Kind.PAUSED);
    assertThat(store.renew(running, LONG)).as("a pause without stop leaves the run alone").isTrue();
    assertThat(store.inspect(name).orElseThrow().currentHolder()).contains("node-a");
    assertThat(store.release(running)).isTrue();
  }

  @Test
  void aPauseWithStopRefusesRenewalsButNotTheRelease() {
    pausing();
    String name = freshName();
    Lease running = store.claim(name, F1, "node-a", LONG).orElseThrow();
    Pause pause = newPauses().pause(name, "ops", "runaway", true);
    assertThat(pause.stopRunning()).isTrue();
    assertThat(store.renew(running, LONG)).isFalse();
    assertThat(store.release(running)).isTrue();
    assertThat(store.inspect(name).orElseThrow().pause().stopRunning()).isTrue();
  }

  @Test
  void aRepeatedPauseKeepsItsStartAndTakesTheNewReason() {
    pausing();
    String name = freshName();
    Pause first = pauses().pause(name, "ops", "one", false);
    Pause again = newPauses().pause(name, "alice", "two", true);
    assertThat(again.since()).isEqualTo(first.since());
    assertThat(again.by()).isEqualTo("alice");
    assertThat(again.reason()).isEqualTo("two");
    assertThat(again.stopRunning()).isTrue();
    assertThat(store.inspect(name).orElseThrow().pause()).isEqualTo(again);
  }

  @Test
  void aManualAcquisitionIsNotPaused() {
    pausing();
    String name = freshName();
    pauses().pause(name, "ops", null, false);
    Lease manual = newStore().acquire(name, "manual", LONG).orElseThrow();
    assertThat(store.inspect(name).orElseThrow().lastFire()).isNull();
    assertThat(store.release(manual)).isTrue();
  }

  @Test
  void resumeRunsNoFiringRecordedAsPausedAndTheNextOneRuns() {
    pausing();
    String name = freshName();
    pauses().pause(name, "ops", null, false);
    assertThat(store.tryClaim(name, F1, "node-a", LONG).kind()).isEqualTo(Kind.PAUSED);
    assertThat(newPauses().resume(name, false)).isTrue();
    assertThat(store.inspect(name).orElseThrow().paused()).isFalse();
    assertThat(newStore().tryClaim(name, F1, "node-b", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isPresent();
    assertThat(pauses().resume(name, false)).as("not paused any more").isFalse();
  }

  @Test
  void resumeWithCatchUpMakesTheLatestPausedFiringAndOnlyItClaimableOnce() {
    pausing();
    String name = freshName();
    pauses().pause(name, "ops", null, false);
    assertThat(store.tryClaim(name, F1, "node-a", LONG).kind()).isEqualTo(Kind.PAUSED);
    assertThat(store.tryClaim(name, F2, "node-a", LONG).kind()).isEqualTo(Kind.PAUSED);
    assertThat(newPauses().resume(name, true)).isTrue();
    assertThat(newStore().tryClaim(name, F1, "node-b", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    Lease caughtUp = newStore().claim(name, F2, "node-b", LONG).orElseThrow();
    assertThat(newStore().tryClaim(name, F2, "node-c", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    store.release(caughtUp);
    assertThat(store.inspect(name).orElseThrow().lastFire()).isEqualTo(F2);
  }

  @Test
  void catchUpLeavesAFiringThatRanAfterThePauseAlone() {
    pausing();
    String name = freshName();
    pauses().pause(name, "ops", null, false);
    assertThat(store.tryClaim(name, F1, "node-a", LONG).kind()).isEqualTo(Kind.PAUSED);
    pauses().resume(name, false);
    store.release(store.claim(name, F2, "node-a", LONG).orElseThrow());
    pauses().pause(name, "ops", null, false);
    assertThat(pauses().resume(name, true)).isTrue();
    assertThat(newStore().tryClaim(name, F2, "node-b", LONG).kind())
        .as("F2 ran: catch-up must not hand it out again")
        .isEqualTo(Kind.ALREADY_RUN);
  }

  @Test
  void aBatchRecordsPausedEntriesAndWinsTheOthers() {
    pausing();
    String paused = freshName();
    String free = freshName();
    pauses().pause(paused, "ops", null, false);
    List<ClaimResult> results =
        newStore()
            .claimAll(
                List.of(
                    new ClaimRequest(paused, F1, "node-a", LONG),
                    new ClaimRequest(free, F1, "node-a", LONG)));
    assertThat(results.get(0).kind()).isEqualTo(Kind.PAUSED);
    assertThat(results.get(1).kind()).isEqualTo(Kind.WON);
    assertThat(newStore().tryClaim(paused, F1, "node-b", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
  }

  @Test
  void racingClaimantsOfAPausedFiringRecordItAtMostOnceAndRunItNever() throws Exception {
    pausing();
    int threads = 8;
    List<LeaseStore> clients = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      clients.add(newStore());
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 5; round++) {
        String name = freshName();
        pauses().pause(name, "ops", null, false);
        Instant firing = F1.plusSeconds(round);
        CyclicBarrier start = new CyclicBarrier(threads);
        ConcurrentLinkedQueue<Kind> kinds = new ConcurrentLinkedQueue<>();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          LeaseStore client = clients.get(t);
          String holder = "node-" + t;
          done.add(
              pool.submit(
                  () -> {
                    start.await();
                    kinds.add(client.tryClaim(name, firing, holder, LONG).kind());
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
        assertThat(kinds).as("round %d", round).doesNotContain(Kind.WON);
        // at most one records it; on a quorum store a race may split the nodes' answers so that
        // none does (the firing is then simply not recorded; it never runs)
        assertThat(kinds).filteredOn(k -> k == Kind.PAUSED).hasSizeLessThanOrEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void badPauseArgumentsAreRefusedBeforeTheStoreIsTouched() {
    pausing();
    assertThatThrownBy(() -> pauses().pause("bad name", "ops", null, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pauses().pause(freshName(), " ", null, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pauses().pause(freshName(), "ops", "x".repeat(501), false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pauses().resume("bad name", false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
