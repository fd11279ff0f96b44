package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

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
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency groups in virtual time, with three replicas on one in-memory store: the jobs of a
 * group never run more than max-concurrent at once across the replicas; a firing that finds the
 * group full waits and runs when a slot frees within its grace, else is recorded once as {@code
 * group-full}; a job naming an unknown group is refused when the scheduler is built.
 */
class SchedulerGroupTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final AtomicInteger inside = new AtomicInteger();
  private final List<Integer> concurrency = new CopyOnWriteArrayList<>();
  private final List<String> started = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private JobRunner working(Duration work) {
    return ctx -> {
      concurrency.add(inside.incrementAndGet());
      started.add(ctx.job() + "@" + Duration.between(T0, time.now()).toSeconds());
      try {
        time.sleep(work);
        return JobResult.succeeded();
      } finally {
        inside.decrementAndGet();
      }
    };
  }

  private JobDefinition job(String name, Duration period, Duration work, Duration grace) {
    return job(name, period, Duration.ZERO, work, grace);
  }

  private JobDefinition job(
      String name, Duration period, Duration offset, Duration work, Duration grace) {
    return new JobDefinition(
        name,
        Schedule.every(period, offset),
        JobPolicy.of(Duration.ofSeconds(3), Duration.ofSeconds(1), null, grace),
        working(work),
        "backups");
  }

  private void threeReplicas(int max, JobDefinition... jobs) {
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
              .groups(Map.of("backups", max))
              .jobs(List.of(jobs))
              .build();
      schedulers.add(s);
      s.start();
    }
  }

  private List<ExecutionRecord> recorded(Outcome outcome) {
    return history.all().stream().filter(r -> r.outcome() == outcome).toList();
  }

  @Test
  void twoJobsOfAGroupOfOneNeverOverlapAndTheSecondWaitsForTheFirst() {
    Duration minute = Duration.ofSeconds(60);
    threeReplicas(
        1,
        job("db-dump", minute, Duration.ofSeconds(5), minute),
        job("files-dump", minute, Duration.ofSeconds(5), minute));

    time.advance(Duration.ofSeconds(195)); // firings at 0, 60, 120, 180 of both jobs

    assertThat(concurrency).as("never two at once").containsOnly(1).hasSize(8);
    assertThat(recorded(Outcome.SUCCEEDED)).hasSize(8);
    assertThat(started)
        .as("one starts at the firing, the other once the slot is free (polled every 0.5 s)")
        .hasSize(8)
        .allSatisfy(s -> assertThat(s).matches(".*@(0|5|6|60|65|66|120|125|126|180|185|186)"));
    assertThat(server.client().list())
        .filteredOn(s -> s.name().startsWith(dev.leasehold.core.lease.CountedLease.PREFIX))
        .allSatisfy(s -> assertThat(s.held()).isFalse());
  }

  @Test
  void aGroupOfTwoRunsTwoAtOnceButNeverThree() {
    Duration minute = Duration.ofSeconds(60);
    threeReplicas(
        2,
        job("a", minute, Duration.ofSeconds(5), minute),
        job("b", minute, Duration.ofSeconds(5), minute),
        job("c", minute, Duration.ofSeconds(5), minute));

    time.advance(Duration.ofSeconds(70)); // firings at 0 and 60

    assertThat(concurrency).hasSize(6).contains(2).doesNotContain(3);
    assertThat(recorded(Outcome.SUCCEEDED)).hasSize(6);
  }

  @Test
  void aFiringThatFindsItsGroupFullPastItsGraceIsRecordedOnceAsGroupFull() {
    threeReplicas(
        1,
        job("long", Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(60)),
        job(
            "short",
            Duration.ofSeconds(60),
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5)));

    time.advance(Duration.ofSeconds(100)); // long fires at 0 and 60 (runs 30 s), short at 10, 70

    assertThat(concurrency).containsOnly(1);
    assertThat(recorded(Outcome.SUCCEEDED))
        .extracting(ExecutionRecord::job)
        .containsExactly("long", "long");
    assertThat(recorded(Outcome.GROUP_FULL))
        .as("short cannot wait 30 s for the slot: recorded once per firing, by one replica")
        .extracting(ExecutionRecord::job, ExecutionRecord::fireTime)
        .containsExactly(tuple("short", T0.plusSeconds(10)), tuple("short", T0.plusSeconds(70)));
    assertThat(recorded(Outcome.GROUP_FULL))
        .allSatisfy(r -> assertThat(r.detail()).contains("group backups"));
  }

  @Test
  void aRunWhoseSlotLeaseIsLostIsStoppedAsLeaseLost() {
    threeReplicas(
        1, job("long", Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(60)));
    time.advance(Duration.ofSeconds(5));
    assertThat(inside.get()).isEqualTo(1);

    server.delete(dev.leasehold.core.lease.CountedLease.slotName("backups", 0));
    time.advance(Duration.ofSeconds(2)); // the next renewal of the slot (each 1 s) is refused

    assertThat(inside.get()).isZero();
    assertThat(recorded(Outcome.LEASE_LOST))
        .singleElement()
        .satisfies(r -> assertThat(r.detail()).contains("stopped: lease lost"));
    assertThat(server.client().inspect("long"))
        .as("the job's own lease, still valid, is released")
        .hasValueSatisfying(s -> assertThat(s.held()).isFalse());
  }

  @Test
  void aJobNamingAnUnknownGroupIsRefused() {
    JobDefinition job =
        new JobDefinition(
            "x",
            Schedule.every(Duration.ofSeconds(1), Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ZERO),
            "nightly");
    assertThatThrownBy(
            () ->
                Scheduler.builder()
                    .node("n")
                    .store(server.client())
                    .executionLog(history)
                    .groups(Map.of("backups", 1))
                    .job(job)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("group 'nightly'");
  }

  @Test
  void aManualRunTakesASlotOfItsGroupSoAScheduledJobOfTheGroupWaitsForIt() {
    Duration hour = Duration.ofHours(1);
    threeReplicas(
        1,
        job("db-dump", hour, Duration.ofSeconds(10), Duration.ofSeconds(5), hour),
        job("files-dump", hour, Duration.ofMinutes(30), Duration.ofSeconds(30), hour));

    List<ExecutionRecord> manual = new CopyOnWriteArrayList<>();
    time.workers().execute(() -> schedulers.get(0).trigger("files-dump").ifPresent(manual::add));
    time.advance(Duration.ofSeconds(60)); // db-dump comes due at 10 s, while files-dump runs

    assertThat(concurrency).as("never two at once, manual runs too").containsOnly(1);
    assertThat(started).containsExactly("files-dump@0", "db-dump@30");
    assertThat(manual)
        .singleElement()
        .extracting(ExecutionRecord::trigger, ExecutionRecord::outcome)
        .containsExactly(dev.leasehold.core.job.TriggerKind.MANUAL, Outcome.SUCCEEDED);
  }
}
