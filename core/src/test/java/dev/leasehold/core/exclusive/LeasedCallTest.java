package dev.leasehold.core.exclusive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * LeasedCall on the reference store: a firing runs once, fail closed, a lost lease interrupts the
 * running code and the interrupt does not outlive the call; Firings picks the firing a call is for.
 */
class LeasedCallTest {
  private static final Instant F = Instant.parse("2026-12-01T02:00:00Z");
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(Clock.systemUTC());
  private final List<String> outcomes = new ArrayList<>();

  private LeasedCall replica(String node) {
    return new LeasedCall(
        server.client(), node, (name, outcome, took) -> outcomes.add(node + " " + outcome));
  }

  @Test
  void aFiringRunsOnceEvenAfterItsLeaseWasReleased() throws Throwable {
    LeasedCall a = replica("a");
    LeasedCall b = replica("b");

    LeasedCall.Result<Long> first =
        a.once("job", F, Duration.ofSeconds(30), () -> CurrentFiring.fence());
    LeasedCall.Result<Long> late = b.once("job", F, Duration.ofSeconds(30), () -> 99L);
    LeasedCall.Result<Long> next =
        b.once("job", F.plusSeconds(60), Duration.ofSeconds(30), () -> CurrentFiring.fence());

    assertThat(first.ran()).isTrue();
    assertThat(first.value()).isEqualTo(1);
    assertThat(late.outcome()).isEqualTo(LeasedCall.Outcome.ALREADY_RUN);
    assertThat(late.value()).isNull();
    assertThat(next.value()).isEqualTo(2);
    assertThat(outcomes).containsExactly("a RAN", "b ALREADY_RUN", "b RAN");
    assertThat(CurrentFiring.get()).isEmpty();
  }

  @Test
  void aFiringDueWhileAnEarlierRunStillHoldsTheLeaseWaitsForItInsteadOfBeingLost()
      throws Throwable {
    LeasedCall a = replica("a");
    LeasedCall b =
        new LeasedCall(
            server.client(),
            "b",
            (n, o, t) -> outcomes.add("b " + o),
            Clock.fixed(F, ZoneId.of("UTC")));
    Lease earlier =
        server.client().claim("job", F.minusSeconds(2), "z", Duration.ofSeconds(30)).orElseThrow();
    Thread release =
        new Thread(
            () -> {
              try {
                Thread.sleep(300);
              } catch (InterruptedException e) {
                return;
              }
              server.client().release(earlier);
            });
    release.start();

    LeasedCall.Result<Long> result =
        b.once("job", F, Duration.ofSeconds(30), () -> CurrentFiring.fence());
    release.join();

    assertThat(result.outcome()).isEqualTo(LeasedCall.Outcome.RAN);
    assertThat(result.value()).isEqualTo(2);
    LeasedCall.Result<Long> tooLate =
        a.once("job", F.minusSeconds(10), Duration.ofSeconds(30), () -> 0L);
    assertThat(tooLate.outcome()).isEqualTo(LeasedCall.Outcome.ALREADY_RUN);
  }

  @Test
  void aStoreThatCannotBeAskedMeansTheCodeDoesNotRun() throws Throwable {
    server.setReachable(false);
    List<String> ran = new ArrayList<>();

    LeasedCall.Result<Object> result =
        replica("a").once("job", F, Duration.ofSeconds(30), () -> ran.add("ran"));

    assertThat(result.outcome()).isEqualTo(LeasedCall.Outcome.STORE_FAILED);
    assertThat(ran).isEmpty();
  }

  @Test
  void aLostLeaseInterruptsTheCodeAndTheInterruptEndsWithTheCall() throws Throwable {
    LeasedCall a = replica("a");

    LeasedCall.Result<Boolean> result =
        a.exclusive(
            "job",
            Duration.ofMillis(90),
            () -> {
              server.delete("job"); // the next renewal (30 ms) fails
              long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
              // code that ignores interrupts: it only looks at the flag
              while (!Thread.currentThread().isInterrupted() && System.nanoTime() < end) {
                Thread.onSpinWait();
              }
              return Thread.currentThread().isInterrupted();
            });

    assertThat(result.value()).isTrue();
    assertThat(result.outcome()).isEqualTo(LeasedCall.Outcome.LOST);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  /**
   * In virtual time, TTL 3 s: a store that cannot be reached is no loss by itself, so the method
   * runs on while its lease is presumed valid and is interrupted exactly when that validity (2.7 s
   * after the acquisition was sent) has passed, as a daemon's job would be.
   */
  @Test
  void aStoreErrorInterruptsTheCodeOnlyWhenTheLeaseValidityHasPassed() {
    VirtualTime time = new VirtualTime(F);
    try {
      InMemoryLeaseStore.Shared store = new InMemoryLeaseStore.Shared(time.clock());
      LeasedCall call =
          new LeasedCall(
              new LeaseHolds(store.client(), time, time, time.workers()),
              "a",
              (name, outcome, took) -> outcomes.add(outcome + " after " + took.toMillis()),
              time.clock());
      AtomicLong interruptedAt = new AtomicLong(-1);
      AtomicReference<LeasedCall.Result<String>> result = new AtomicReference<>();
      time.workers()
          .execute(
              () -> {
                try {
                  result.set(
                      call.exclusive(
                          "job",
                          Duration.ofSeconds(3),
                          () -> {
                            try {
                              time.sleep(Duration.ofMinutes(1));
                              return "finished";
                            } catch (InterruptedException e) {
                              interruptedAt.set(time.nanoTime() / 1_000_000);
                              return "interrupted";
                            }
                          }));
                } catch (Throwable e) {
                  throw new AssertionError(e);
                }
              });
      time.advance(Duration.ZERO);
      store.setReachable(false);

      time.advance(Duration.ofMillis(2699)); // renewals at 1 s, 1.5 s, 2 s, 2.5 s failed
      assertThat(interruptedAt).hasValue(-1);
      time.advance(Duration.ofMillis(1));

      assertThat(interruptedAt).hasValue(2700);
      assertThat(result.get().outcome()).isEqualTo(LeasedCall.Outcome.LOST);
      assertThat(result.get().value()).isEqualTo("interrupted");
      assertThat(outcomes).containsExactly("LOST after 2700");
    } finally {
      time.shutdown();
    }
  }

  @Test
  void theFiringIsTheLatestAtOrBeforeTheCallAllowingAnEarlyTimer() {
    Schedule daily = Schedule.cron("0 3 * * *", ZoneId.of("Europe/Berlin")); // 02:00 UTC
    Schedule everyTwo = Schedule.every(Duration.ofSeconds(2), Duration.ZERO);

    assertThat(Firings.due(daily::nextAfter, F.plusMillis(5))).contains(F);
    assertThat(Firings.due(daily::nextAfter, F.minusMillis(200))).contains(F);
    assertThat(Firings.due(daily::nextAfter, F.minusMillis(300))).contains(F.minusSeconds(86_400));
    assertThat(Firings.due(daily::nextAfter, F.plusSeconds(7_200))).contains(F);
    assertThat(Firings.due(everyTwo::nextAfter, F.plusMillis(1_700))).contains(F);
    assertThat(Firings.due(everyTwo::nextAfter, F.plusMillis(1_800))).contains(F.plusSeconds(2));
  }
}
