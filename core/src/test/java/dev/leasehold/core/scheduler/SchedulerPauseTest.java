package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster-wide pause, in virtual time, with three replicas on one in-memory store: no firing runs
 * once the pause is written, each paused firing is recorded once as {@code paused}, a resume runs
 * none of them, a resume with catch-up runs the latest one once, and a pause with stop ends a run
 * at its next renewal.
 */
class SchedulerPauseTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final String JOB = "export";

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final List<Instant> runs = new CopyOnWriteArrayList<>();
  private final List<Boolean> lostLeases = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private JobRunner working(Duration work) {
    return ctx -> {
      runs.add(ctx.firing());
      try {
        time.sleep(work);
        return JobResult.succeeded();
      } finally {
        lostLeases.add(ctx.leaseLost());
      }
    };
  }

  /** Three replicas of one job firing every 10 s (epoch-aligned), with the given policy. */
  private void threeReplicas(JobPolicy policy, Duration work) {
    JobDefinition job =
        new JobDefinition(
            JOB, Schedule.every(Duration.ofSeconds(10), Duration.ZERO), policy, working(work));
    for (int i = 1; i <= 3; i++) {
      Scheduler s =
          Scheduler.builder()
              .node("node-" + i)
              .store(server.client())
              .executionLog(history)
              .clock(time.clock())
              .ticker(time)
              .timer(time)
              .workers(time.workers())
              .jobs(List.of(job))
              .build();
      schedulers.add(s);
      s.start();
    }
  }

  private List<Instant> recorded(Outcome outcome) {
    return history.all().stream()
        .filter(r -> r.outcome() == outcome)
        .map(ExecutionRecord::fireTime)
        .sorted()
        .toList();
  }

  private static List<Instant> every10s(int fromSecond, int toSecond) {
    List<Instant> out = new ArrayList<>();
    for (int s = fromSecond; s <= toSecond; s += 10) {
      out.add(T0.plusSeconds(s));
    }
    return out;
  }

  @Test
  void aPausedJobRunsNoFiringAndEachFiringIsRecordedPausedOnceAcrossReplicas() {
    threeReplicas(JobPolicy.defaults(), Duration.ofSeconds(1));
    time.advance(Duration.ofSeconds(25));
    assertThat(runs).containsExactlyInAnyOrderElementsOf(every10s(0, 20));

    server.client().pause(JOB, "ops", "maintenance", false);
    time.advance(Duration.ofSeconds(60)); // T0+85: six firings fall while paused

    assertThat(runs)
        .as("nothing runs once paused")
        .containsExactlyInAnyOrderElementsOf(every10s(0, 20));
    assertThat(recorded(Outcome.PAUSED)).containsExactlyElementsOf(every10s(30, 80));
    assertThat(recorded(Outcome.MISSED)).isEmpty();
    assertThat(history.all())
        .filteredOn(r -> r.outcome() == Outcome.PAUSED)
        .allSatisfy(r -> assertThat(r.fence()).isZero());
  }

  @Test
  void aResumeRunsNoPausedFiringAndTheNextFiringRunsAsScheduled() {
    threeReplicas(JobPolicy.defaults(), Duration.ofSeconds(1));
    time.advance(Duration.ofSeconds(5));
    server.client().pause(JOB, "ops", null, false);
    time.advance(Duration.ofSeconds(36)); // T0+41: 10, 20, 30, 40 recorded paused
    assertThat(server.client().resume(JOB, false)).isTrue();
    time.advance(Duration.ofSeconds(15)); // T0+56: the resume seen, 50 due

    assertThat(runs).containsExactlyInAnyOrder(T0, T0.plusSeconds(50));
    assertThat(recorded(Outcome.PAUSED)).containsExactlyElementsOf(every10s(10, 40));
  }

  @Test
  void aResumeWithCatchUpRunsTheLatestPausedFiringOnceWithinItsGrace() {
    threeReplicas(JobPolicy.defaults(), Duration.ofSeconds(1)); // misfire-grace 1 min
    time.advance(Duration.ofSeconds(5));
    server.client().pause(JOB, "ops", null, false);
    time.advance(Duration.ofSeconds(36)); // T0+41
    assertThat(server.client().resume(JOB, true)).isTrue();
    time.advance(Duration.ofSeconds(15)); // T0+56

    assertThat(runs)
        .as("the latest paused firing (40) runs once, the older ones never")
        .containsExactlyInAnyOrder(T0, T0.plusSeconds(40), T0.plusSeconds(50));
    assertThat(recorded(Outcome.SUCCEEDED))
        .containsExactly(T0, T0.plusSeconds(40), T0.plusSeconds(50));
  }

  @Test
  void catchUpRunsNothingWhenTheLatestPausedFiringIsPastItsGrace() {
    threeReplicas(JobPolicy.of(null, null, null, Duration.ofSeconds(3)), Duration.ofSeconds(1));
    time.advance(Duration.ofSeconds(5));
    server.client().pause(JOB, "ops", null, false);
    time.advance(Duration.ofSeconds(38)); // T0+43: 40 is 3 s old, past grace + tolerance at poll
    server.client().resume(JOB, true);
    time.advance(Duration.ofSeconds(5)); // T0+48

    assertThat(runs).containsExactly(T0);
  }

  @Test
  void aPauseWithStopEndsTheRunningRunAtItsNextRenewal() {
    threeReplicas(
        JobPolicy.of(Duration.ofSeconds(3), Duration.ofSeconds(1), null, null),
        Duration.ofMinutes(5));
    time.advance(Duration.ofSeconds(2));
    assertThat(runs).containsExactly(T0);

    server.client().pause(JOB, "ops", "runaway", true);
    time.advance(Duration.ofSeconds(5));

    assertThat(lostLeases).containsExactly(true);
    assertThat(history.all())
        .filteredOn(r -> r.fireTime().equals(T0))
        .singleElement()
        .satisfies(r -> assertThat(r.outcome()).isEqualTo(Outcome.LEASE_LOST));
  }
}
