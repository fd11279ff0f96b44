package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.schedule.Exclusion;
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
 * Exclusion windows and start/end, in virtual time with three replicas: a firing inside a window
 * neither runs nor is recorded (not as missed either), the firings around it run once each, and the
 * next firing shown skips the window.
 */
class SchedulerExclusionTest {
  private static final Instant T0 = Instant.parse("2026-12-24T22:00:00Z");
  private static final Duration PERIOD = Duration.ofMinutes(10);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final List<Instant> runs = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private void start(JobDefinition job) {
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

  private JobRunner body() {
    return ctx -> {
      runs.add(ctx.firing());
      time.sleep(Duration.ofSeconds(1));
      return JobResult.succeeded();
    };
  }

  @Test
  void noFiringInsideAWindowCrossingMidnightRunsOrIsMissedAndTheOnesAroundItRunOnce() {
    Instant from = Instant.parse("2026-12-24T23:30:00Z");
    Instant to = Instant.parse("2026-12-25T00:20:00Z");
    Schedule schedule =
        Schedule.windowed(
            Schedule.every(PERIOD, Duration.ZERO),
            null,
            null,
            List.of(new Exclusion.Between(from, to)));
    start(new JobDefinition("nightly", schedule, JobPolicy.defaults(), body()));

    time.advance(Duration.ofMinutes(85).plusSeconds(5)); // to 23:25:05
    assertThat(schedulers.get(0).nextFiring("nightly"))
        .as("the next firing shown is the first after the window")
        .contains(to);

    time.advance(Duration.ofMinutes(60)); // to 00:25:05
    List<Instant> expected = new ArrayList<>();
    for (Instant f = T0; !f.isAfter(T0.plus(Duration.ofMinutes(145))); f = f.plus(PERIOD)) {
      if (f.isBefore(from) || !f.isBefore(to)) {
        expected.add(f);
      }
    }
    assertThat(runs).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(history.all())
        .as("nothing recorded for the excluded firings, not even a miss")
        .extracting(ExecutionRecord::outcome)
        .containsOnly(Outcome.SUCCEEDED)
        .hasSize(expected.size());
  }

  @Test
  void onlyFiringsFromStartToEndRun() {
    Instant start = T0.plus(Duration.ofMinutes(30));
    Instant end = T0.plus(Duration.ofMinutes(50));
    Schedule schedule =
        Schedule.windowed(Schedule.every(PERIOD, Duration.ZERO), start, end, List.of());
    start(new JobDefinition("bounded", schedule, JobPolicy.defaults(), body()));
    assertThat(schedulers.get(0).nextFiring("bounded")).contains(start);

    time.advance(Duration.ofMinutes(90));

    assertThat(runs).containsExactlyInAnyOrder(start, start.plus(PERIOD), end);
    assertThat(schedulers.get(0).nextFiring("bounded")).isEmpty();
    assertThat(history.all()).hasSize(3);
  }
}
