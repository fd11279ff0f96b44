package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.schedule.JitteredSchedule;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Jitter, in virtual time: each firing starts at a deterministic offset within the bound of its
 * nominal instant, two independently built schedules agree on every offset, and with three replicas
 * every jittered firing runs exactly once, at its jittered instant.
 */
class SchedulerJitterTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final Duration BOUND = Duration.ofSeconds(4);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();

  /** Firing instant to the virtual instant the body started at, and which node ran it. */
  private final Map<Instant, Instant> startedAt = new ConcurrentHashMap<>();

  private final List<Instant> runs = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private static Schedule jittered(String job) {
    return Schedule.jittered(Schedule.every(PERIOD, Duration.ZERO), job, BOUND);
  }

  @Test
  void offsetsAreDeterministicWithinTheBoundAndTheSameOnTwoInstances() {
    JitteredSchedule a = (JitteredSchedule) jittered("report");
    JitteredSchedule b = (JitteredSchedule) jittered("report");
    JitteredSchedule other = (JitteredSchedule) jittered("other-job");
    var offsets = new HashSet<Duration>();
    boolean differsForAnotherJob = false;
    for (int i = 0; i < 200; i++) {
      Instant nominal = T0.plus(PERIOD.multipliedBy(i));
      Duration offset = a.offset(nominal);
      assertThat(offset).isEqualTo(b.offset(nominal));
      assertThat(offset).isBetween(Duration.ZERO, BOUND.minusMillis(1));
      offsets.add(offset);
      differsForAnotherJob |= !other.offset(nominal).equals(offset);
      // the schedule's firings are the jittered instants, in order
      assertThat(a.nextAfter(nominal.minusMillis(1))).contains(nominal.plus(offset));
      assertThat(a.nextAfter(nominal.plus(offset))).contains(a.jittered(nominal.plus(PERIOD)));
    }
    assertThat(offsets).as("offsets spread over the bound").hasSizeGreaterThan(100);
    assertThat(differsForAnotherJob).isTrue();
  }

  @Test
  void anOffsetStaysBelowTheGapToTheNextFiring() {
    JitteredSchedule wide =
        (JitteredSchedule)
            Schedule.jittered(Schedule.every(Duration.ofSeconds(1), Duration.ZERO), "x", PERIOD);
    Instant previous = Instant.MIN;
    Instant t = T0;
    for (int i = 0; i < 100; i++) {
      Instant next = wide.nextAfter(t).orElseThrow();
      assertThat(next).isAfter(previous).isAfter(t);
      assertThat(Duration.between(T0.plusSeconds(i), next)).isLessThan(Duration.ofSeconds(1));
      previous = next;
      t = next;
    }
  }

  @Test
  void everyJitteredFiringRunsOnceAcrossThreeReplicasAtItsJitteredInstant() {
    String name = "report";
    JobRunner body =
        ctx -> {
          runs.add(ctx.firing());
          startedAt.put(ctx.firing(), time.now());
          time.sleep(Duration.ofSeconds(1));
          return JobResult.succeeded();
        };
    JobDefinition job = new JobDefinition(name, jittered(name), JobPolicy.defaults(), body);
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
    assertThat(schedulers.get(0).nextFiring(name))
        .as("the next run shown is the jittered start")
        .contains(((JitteredSchedule) jittered(name)).jittered(T0));

    time.advance(Duration.ofSeconds(125));

    JitteredSchedule schedule = (JitteredSchedule) jittered(name);
    List<Instant> expected = new ArrayList<>();
    for (int i = 0; i <= 12; i++) {
      expected.add(schedule.jittered(T0.plus(PERIOD.multipliedBy(i))));
    }
    assertThat(runs).as("each jittered firing once").containsExactlyInAnyOrderElementsOf(expected);
    startedAt.forEach((firing, at) -> assertThat(at).isEqualTo(firing));
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsOnly(Outcome.SUCCEEDED)
        .hasSize(13);
  }
}
