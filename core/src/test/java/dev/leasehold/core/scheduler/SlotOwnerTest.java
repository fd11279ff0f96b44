package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.scheduler.JobSlot.Phase;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The scheduler's state has one owner, and a slot's phase changes only along the table in {@link
 * Phase#canBecome}: anything else is refused and leaves the slot as it was.
 */
class SlotOwnerTest {
  private final SlotOwner owner = new SlotOwner(new VirtualTime(Instant.EPOCH));
  private final JobSlot slot =
      new JobSlot(
          new JobDefinition(
              "nightly",
              Schedule.every(Duration.ofMinutes(1), Duration.ZERO),
              JobPolicy.defaults(),
              ctx -> JobResult.succeeded()),
          owner);

  /** The transitions the scheduler makes, and only those. */
  private static Set<Phase> allowedFrom(Phase from) {
    return switch (from) {
      case IDLE -> EnumSet.of(Phase.CLAIMING);
      case CLAIMING ->
          EnumSet.of(Phase.IDLE, Phase.BACKING_OFF, Phase.WAITING_FOR_LEASE, Phase.RUNNING);
      case BACKING_OFF, WAITING_FOR_LEASE -> EnumSet.of(Phase.IDLE, Phase.CLAIMING);
      case RUNNING -> EnumSet.of(Phase.IDLE);
    };
  }

  /** Brings the slot from IDLE into {@code phase} through allowed transitions. */
  private void reach(Phase phase) {
    if (phase != Phase.IDLE) {
      slot.enter(Phase.CLAIMING);
      if (phase != Phase.CLAIMING) {
        slot.enter(phase);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void aSlotMovesOnlyAlongTheTransitionTable(Phase from) {
    for (Phase to : Phase.values()) {
      String outcome =
          owner.call(
              () -> {
                JobSlot fresh = new JobSlot(slot.job, owner);
                if (from != Phase.IDLE) {
                  fresh.enter(Phase.CLAIMING);
                  if (from != Phase.CLAIMING) {
                    fresh.enter(from);
                  }
                }
                try {
                  fresh.enter(to);
                  return "entered " + fresh.phase();
                } catch (IllegalStateException refused) {
                  return "refused, still " + fresh.phase();
                }
              });
      assertThat(outcome)
          .as(from + " -> " + to)
          .isEqualTo(allowedFrom(from).contains(to) ? "entered " + to : "refused, still " + from);
    }
  }

  @Test
  void anIllegalTransitionIsRefusedAndLeavesTheSlotAsItWas() {
    String refusal =
        owner.call(
            () -> {
              reach(Phase.RUNNING);
              try {
                slot.enter(Phase.CLAIMING); // a second claim while the job runs here
                return "not refused";
              } catch (IllegalStateException e) {
                return e.getMessage() + "; now " + slot.phase();
              }
            });
    assertThat(refusal)
        .isEqualTo("job 'nightly': no transition from RUNNING to CLAIMING; now RUNNING");
  }

  @Test
  void slotStateTouchedOutsideItsOwnerIsRefused() {
    assertThatThrownBy(() -> slot.enter(Phase.CLAIMING))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outside its owner");
    assertThatThrownBy(() -> slot.giveUp(Instant.EPOCH, null, "late"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(owner.call(slot::phase)).isEqualTo(Phase.IDLE);
  }

  @Test
  void anEventHandedOverFromAnEventRunsAfterItNotInsideIt() {
    List<String> order = new ArrayList<>();
    owner.run(
        () -> {
          order.add("outer starts");
          owner.execute(() -> order.add("inner"));
          order.add("outer ends");
        });
    assertThat(order).containsExactly("outer starts", "outer ends", "inner");
  }

  @Test
  void aWaitingCallFromInsideTheOwnerIsRefused() {
    String answer =
        owner.call(
            () -> {
              try {
                return owner.call(() -> "nested");
              } catch (IllegalStateException e) {
                return "refused";
              }
            });
    assertThat(answer).isEqualTo("refused");
  }

  @Test
  void eventsFromManyThreadsRunOneAtATimeAndNoneIsLost() throws InterruptedException {
    int threads = 8;
    int eachSends = 2_000;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    int[] counted = {0}; // plain field: only the owner touches it
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    try {
      for (int t = 0; t < threads; t++) {
        pool.execute(
            () -> {
              try {
                go.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
              for (int i = 0; i < eachSends; i++) {
                owner.execute(
                    () -> {
                      if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                      }
                      counted[0]++;
                      inside.decrementAndGet();
                    });
              }
            });
      }
      go.countDown();
      pool.shutdown();
      assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(owner.call(() -> counted[0])).isEqualTo(threads * eachSends);
    assertThat(overlaps).hasValue(0);
  }
}
