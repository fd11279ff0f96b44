package dev.leasehold.core.lease.hold;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The lease-holding primitive in virtual time, on the reference store behind a connection whose
 * answers can be delayed. TTL 3 s, renew-every 1 s: a lease taken at 0 is presumed valid until 2.7
 * s (the TTL minus a tenth), and each confirmed renewal moves that to its send plus 2.7 s.
 */
class LeaseHoldTest {
  private static final Instant T0 = Instant.parse("2026-12-07T12:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration EVERY = Duration.ofSeconds(1);
  private static final String NAME = "job";

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final Connection store = new Connection(server.client(), time);
  private final LeaseHolds holds = new LeaseHolds(store, time, time, time.workers());
  private final List<String> heard = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    store.hang = Duration.ZERO;
    store.answerLate = Duration.ZERO;
    server.setReachable(true);
    time.advance(Duration.ofMinutes(2)); // lets hanging calls return
    time.shutdown();
  }

  /** Records what the holder is told, at which virtual millisecond. */
  private final LeaseHold.Listener listener =
      new LeaseHold.Listener() {
        @Override
        public void lost(LeaseHold hold, LeaseHold.Loss loss) {
          heard.add("lost " + loss.cause() + " at " + millis());
        }

        @Override
        public void renewed(LeaseHold hold) {
          heard.add("renewed at " + millis());
        }
      };

  private long millis() {
    return time.nanoTime() / 1_000_000;
  }

  private List<String> losses() {
    return heard.stream().filter(s -> s.startsWith("lost")).toList();
  }

  /** Runs {@code take} on a worker (store calls may sleep in virtual time) and advances. */
  private LeaseHolds.Taken take(Supplier<LeaseHolds.Taken> take, Duration advance) {
    AtomicReference<LeaseHolds.Taken> taken = new AtomicReference<>();
    time.workers().execute(() -> taken.set(take.get()));
    time.advance(advance);
    assertThat(taken.get()).as("the attempt answered").isNotNull();
    return taken.get();
  }

  private LeaseHold claimAtZero() {
    LeaseHolds.Taken taken =
        take(() -> holds.claim(NAME, T0, "a", TTL, EVERY, listener), Duration.ZERO);
    assertThat(taken.held()).isTrue();
    return taken.hold();
  }

  private Optional<LeaseState> stored() {
    return server.client().inspect(NAME);
  }

  @ParameterizedTest(name = "claim answered after {0} ms: held {1}")
  @CsvSource({"0, true", "2699, true", "2700, false", "5000, false"})
  void aClaimAnsweredAfterItsValidityIsNotHeldAndIsReleased(long delayMillis, boolean held) {
    store.answerLate = Duration.ofMillis(delayMillis);

    LeaseHolds.Taken taken =
        take(() -> holds.claim(NAME, T0, "a", TTL, EVERY, listener), Duration.ofSeconds(6));

    assertThat(taken.answer().won()).isTrue();
    assertThat(taken.held()).isEqualTo(held);
    assertThat(taken.late()).isEqualTo(!held);
    if (!held) {
      // released by its token at once (when the store still had it), and the firing stays spent
      assertThat(store.releases.get()).isEqualTo(1);
      assertThat(server.client().tryClaim(NAME, T0, "b", TTL).kind())
          .isEqualTo(ClaimResult.Kind.ALREADY_RUN);
    }
  }

  @Test
  void anAcquisitionAnsweredLateIsNotHeldAndARefusalSaysHeld() {
    store.answerLate = Duration.ofMillis(2700);
    LeaseHolds.Taken late =
        take(() -> holds.acquire(NAME, "a", TTL, EVERY, listener), Duration.ofSeconds(3));
    store.answerLate = Duration.ZERO;
    server.client().acquire(NAME, "z", TTL).orElseThrow();
    LeaseHolds.Taken refused =
        take(() -> holds.acquire(NAME, "a", TTL, EVERY, listener), Duration.ZERO);

    assertThat(late.late()).isTrue();
    assertThat(refused.held()).isFalse();
    assertThat(refused.late()).isFalse();
    assertThat(refused.answer().kind()).isEqualTo(ClaimResult.Kind.HELD);
  }

  /**
   * What each kind of renewal answer does to a lease taken at 0 (renewals at 1 s, then every second
   * from each send; a failed one retried after 0.5 s): when the holder hears "lost" and why.
   */
  @ParameterizedTest(name = "{0}: lost at {1} ms ({2})")
  @CsvSource({
    // fault from 0 on,     lost at (ms), cause
    "store refuses,         1000,  REFUSED",
    "store unreachable,     2700,  DEADLINE_PASSED",
    "store hangs,           2700,  DEADLINE_PASSED",
    "answers 2.7 s late,    2700,  DEADLINE_PASSED",
    "answers 1.5 s late,    3700,  DEADLINE_PASSED", // confirmed at 2.5 s; the next only at 4 s
    "answers 0.9 s late,    ,      ",
    "unreachable for 1.2 s, ,      ",
  })
  void aLeaseIsLostWhenTheStoreRefusesOrTheDeadlinePassesNeverOnAStoreErrorAlone(
      String fault, Long lostAt, LeaseHold.Cause cause) {
    LeaseHold hold = claimAtZero();
    switch (fault) {
      case "store refuses" -> server.delete(NAME); // expired and gone: renewals are refused
      case "store unreachable", "unreachable for 1.2 s" -> server.setReachable(false);
      case "store hangs" -> store.hang = Duration.ofMinutes(1);
      case "answers 2.7 s late" -> store.answerLate = Duration.ofMillis(2700);
      case "answers 1.5 s late" -> store.answerLate = Duration.ofMillis(1500);
      case "answers 0.9 s late" -> store.answerLate = Duration.ofMillis(900);
      default -> throw new IllegalArgumentException(fault);
    }
    if (fault.equals("unreachable for 1.2 s")) {
      time.advance(Duration.ofMillis(1200)); // the renewal at 1 s failed
      assertThat(hold.state()).isEqualTo(LeaseHold.State.HOLDING);
      server.setReachable(true); // the retry at 1.5 s reaches it
    }

    time.advance(Duration.ofSeconds(30));

    if (lostAt == null) {
      assertThat(losses()).isEmpty();
      assertThat(hold.state()).isEqualTo(LeaseHold.State.HOLDING);
      assertThat(hold.millisLeft()).isPositive();
      assertThat(stored()).hasValueSatisfying(s -> assertThat(s.held()).isTrue());
    } else {
      assertThat(losses()).containsExactly("lost " + cause + " at " + lostAt);
      assertThat(hold.state()).isEqualTo(LeaseHold.State.LOST);
      assertThat(hold.loss()).hasValueSatisfying(l -> assertThat(l.cause()).isEqualTo(cause));
      assertThat(hold.millisLeft()).isZero();
    }
  }

  @Test
  void aRenewalAnsweredTooLateDoesNotMoveTheDeadline() {
    LeaseHold hold = claimAtZero();
    store.answerLate = Duration.ofMillis(2700); // sent at 1 s, confirmed at 3.7 s: too late

    time.advance(Duration.ofMillis(2699));
    assertThat(hold.millisLeft()).isEqualTo(1); // still the claim's deadline, 2.7 s
    assertThat(heard).isEmpty();
    time.advance(Duration.ofSeconds(3)); // the late "renewed" arrives after the loss

    assertThat(heard).containsExactly("lost DEADLINE_PASSED at 2700");
  }

  @Test
  void aConfirmedRenewalMovesTheDeadlineToItsSendPlusTheValidity() {
    LeaseHold hold = claimAtZero();

    time.advance(Duration.ofMillis(1000)); // renewed, sent at 1 s: valid until 3.7 s

    assertThat(heard).containsExactly("renewed at 1000");
    assertThat(hold.millisLeft()).isEqualTo(2700);
  }

  @Test
  void releaseFreesTheLeaseByTokenAndStopsRenewing() {
    LeaseHold hold = claimAtZero();
    time.advance(Duration.ofMillis(1500));
    int renewals = store.renewals.get();

    assertThat(hold.release()).isTrue();
    assertThat(hold.release()).isFalse(); // idempotent: no second store call
    time.advance(Duration.ofSeconds(30));

    assertThat(renewals).isEqualTo(1);
    assertThat(store.renewals.get()).isEqualTo(renewals);
    assertThat(store.releases.get()).isEqualTo(1);
    assertThat(hold.state()).isEqualTo(LeaseHold.State.RELEASED);
    assertThat(losses()).isEmpty();
    assertThat(stored()).hasValueSatisfying(s -> assertThat(s.held()).isFalse());
  }

  @Test
  void releaseAfterALossLeavesTheNextHoldersLeaseAlone() {
    LeaseHold hold = claimAtZero();
    server.delete(NAME);
    time.advance(Duration.ofSeconds(1)); // refused: lost
    Lease next = server.client().acquire(NAME, "b", TTL).orElseThrow();

    assertThat(hold.release()).isFalse();
    time.advance(Duration.ofSeconds(1));

    assertThat(store.releases.get()).isZero();
    assertThat(hold.state()).isEqualTo(LeaseHold.State.LOST);
    assertThat(losses()).containsExactly("lost REFUSED at 1000");
    assertThat(stored())
        .hasValueSatisfying(
            s -> {
              assertThat(s.held()).isTrue();
              assertThat(s.holder()).isEqualTo("b");
              assertThat(s.fence()).isEqualTo(next.fence());
            });
  }

  @Test
  void aRefusalArrivingAfterTheDeadlineFiredIsNotASecondLoss() {
    LeaseHold hold = claimAtZero();
    store.hang = Duration.ofSeconds(5); // sent at 1 s, asks the store at 6 s: expired, refused

    time.advance(Duration.ofSeconds(10));

    assertThat(losses()).containsExactly("lost DEADLINE_PASSED at 2700");
    assertThat(store.refusals.get()).isEqualTo(1);
    assertThat(hold.loss().orElseThrow().cause()).isEqualTo(LeaseHold.Cause.DEADLINE_PASSED);
  }

  @Test
  void theTimingRulesAreWrittenOnce() {
    assertThat(LeaseTiming.defaultRenewEvery(Duration.ofSeconds(30))).hasSeconds(10);
    assertThat(LeaseTiming.defaultRenewEvery(Duration.ofMillis(3))).hasMillis(1);
    assertThat(LeaseTiming.defaultRenewEvery(Duration.ofMillis(100))).hasMillis(33);
    assertThat(LeaseTiming.margin(Duration.ofSeconds(30))).hasSeconds(3);
    assertThat(LeaseTiming.validUntil(5, Duration.ofNanos(100))).isEqualTo(95);
    assertThat(LeaseTiming.answeredInTime(0, TTL, 2_699_999_999L)).isTrue();
    assertThat(LeaseTiming.answeredInTime(0, TTL, 2_700_000_000L)).isFalse();
  }

  /** The reference store behind a connection whose answers can be held back (fault injection). */
  static final class Connection implements LeaseStore {
    private final LeaseStore store;
    private final VirtualTime time;
    volatile Duration hang = Duration.ZERO; // before the store sees the call
    volatile Duration answerLate = Duration.ZERO; // after the store answered
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger refusals = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();

    Connection(LeaseStore store, VirtualTime time) {
      this.store = store;
      this.time = time;
    }

    private void pause(Duration d) {
      if (d.isZero()) {
        return;
      }
      try {
        time.sleep(d);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LeaseStoreException("interrupted");
      }
    }

    private <T> T late(T answer) {
      pause(answerLate);
      return answer;
    }

    @Override
    public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
      pause(hang);
      return late(store.claim(name, firing, holder, ttl));
    }

    @Override
    public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
      pause(hang);
      return late(store.tryClaim(name, firing, holder, ttl));
    }

    @Override
    public Optional<Lease> acquire(String name, String holder, Duration ttl) {
      pause(hang);
      return late(store.acquire(name, holder, ttl));
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      renewals.incrementAndGet();
      pause(hang);
      boolean renewed = store.renew(lease, ttl);
      if (!renewed) {
        refusals.incrementAndGet();
      }
      return late(renewed);
    }

    @Override
    public boolean release(Lease lease) {
      releases.incrementAndGet();
      return store.release(lease);
    }

    @Override
    public Optional<LeaseState> inspect(String name) {
      return store.inspect(name);
    }

    @Override
    public List<LeaseState> list() {
      return store.list();
    }
  }
}
