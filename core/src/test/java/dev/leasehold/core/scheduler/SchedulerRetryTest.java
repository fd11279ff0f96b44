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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Retries of failed runs in virtual time: three replicas share one store and one history, and each
 * hears of the rows it writes (with whether a retry follows). The history is the ledger.
 */
class SchedulerRetryTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();

  /** Rows as their writers heard of them: the row and whether a retry follows. */
  record Heard(ExecutionRecord row, boolean retrying) {}

  private final List<Heard> heard = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private Scheduler replica(String node, Clock clock, JobDefinition job) {
    Scheduler s =
        Scheduler.builder()
            .node(node)
            .store(server.client())
            .executionLog(history)
            .clock(clock)
            .ticker(time)
            .timer(time)
            .workers(time.workers())
            .job(job)
            .listener(
                new SchedulerListener() {
                  @Override
                  public void executionFinished(ExecutionRecord record, boolean retrying) {
                    heard.add(new Heard(record, retrying));
                  }
                })
            .build();
    schedulers.add(s);
    return s;
  }

  private void threeReplicas(JobDefinition job) {
    for (int i = 1; i <= 3; i++) {
      replica("node-" + i, time.clock(), job).start();
    }
  }

  /** Works {@code work}, then fails its first {@code failures} runs and succeeds after that. */
  private JobRunner failingFirst(int failures, Duration work) {
    AtomicInteger runs = new AtomicInteger();
    return ctx -> {
      time.sleep(work);
      return runs.incrementAndGet() <= failures
          ? JobResult.failed("attempt " + ctx.attempt())
          : JobResult.succeeded();
    };
  }

  private static JobDefinition job(Schedule schedule, RetryPolicy retry, JobRunner runner) {
    return new JobDefinition("flaky", schedule, JobPolicy.defaults().withRetry(retry), runner);
  }

  /** The history of the job, oldest first. */
  private List<ExecutionRecord> rows() {
    List<ExecutionRecord> rows = new ArrayList<>(history.recent("flaky", 100));
    rows.sort(Comparator.comparing(ExecutionRecord::startedAt));
    return rows;
  }

  @Test
  void aFiringThatFailsTwiceRunsThreeAttemptsWithRisingFencesAndTheBackoffDoubling() {
    RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(5), MINUTE);
    threeReplicas(
        job(
            Schedule.every(Duration.ofHours(1), Duration.ZERO),
            retry,
            failingFirst(2, Duration.ofSeconds(1))));
    time.advance(Duration.ofMinutes(2));

    List<ExecutionRecord> rows = rows();
    assertThat(rows).extracting(ExecutionRecord::fireTime).containsOnly(T0);
    assertThat(rows).extracting(ExecutionRecord::attempt).containsExactly(1, 2, 3);
    assertThat(rows)
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.FAILED, Outcome.FAILED, Outcome.SUCCEEDED);
    assertThat(rows.get(1).fence()).isGreaterThan(rows.get(0).fence());
    assertThat(rows.get(2).fence()).isGreaterThan(rows.get(1).fence());
    // each retry starts no earlier than its backoff after the failed run's end: 5 s, then 10 s
    assertThat(rows.get(1).startedAt()).isAfterOrEqualTo(rows.get(0).finishedAt().plusSeconds(5));
    assertThat(rows.get(2).startedAt()).isAfterOrEqualTo(rows.get(1).finishedAt().plusSeconds(10));
    assertThat(rows.get(2).startedAt()).isBefore(rows.get(1).finishedAt().plusSeconds(12));
    // only the last row is final: the failures were retried, so nobody heard them as final
    assertThat(heard).extracting(Heard::retrying).containsExactly(true, true, false);
  }

  @Test
  void theBackoffStopsGrowingAtMaxBackoffAndTheLastAttemptIsFinal() {
    RetryPolicy retry = new RetryPolicy(4, Duration.ofSeconds(4), Duration.ofSeconds(6));
    threeReplicas(
        job(
            Schedule.every(Duration.ofHours(1), Duration.ZERO),
            retry,
            failingFirst(99, Duration.ofSeconds(1))));
    time.advance(Duration.ofMinutes(2));

    List<ExecutionRecord> rows = rows();
    assertThat(rows).extracting(ExecutionRecord::attempt).containsExactly(1, 2, 3, 4);
    assertThat(rows).extracting(ExecutionRecord::outcome).containsOnly(Outcome.FAILED);
    long[] pauses = {4, 6, 6};
    for (int i = 1; i < rows.size(); i++) {
      Instant due = rows.get(i - 1).finishedAt().plusSeconds(pauses[i - 1]);
      assertThat(rows.get(i).startedAt()).isAfterOrEqualTo(due).isBefore(due.plusSeconds(2));
    }
    assertThat(heard).extracting(Heard::retrying).containsExactly(true, true, true, false);
  }

  @Test
  void aRetryIsClaimedByAnotherReplicaWhenTheOneThatFailedIsGone() {
    RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(5), MINUTE);
    JobDefinition flaky =
        job(
            Schedule.every(Duration.ofHours(1), Duration.ZERO),
            retry,
            failingFirst(1, Duration.ofSeconds(1)));
    // the first replica's clock runs ahead: it claims the firing first
    Scheduler first = replica("node-1", time.clock(Duration.ofMillis(500)), flaky);
    first.start();
    replica("node-2", time.clock(), flaky).start();
    replica("node-3", time.clock(), flaky).start();
    time.advance(Duration.ofSeconds(2));
    assertThat(rows()).extracting(ExecutionRecord::node).containsExactly("node-1");
    first.stop(Duration.ZERO); // killed right after its failed run

    time.advance(Duration.ofMinutes(1));
    List<ExecutionRecord> rows = rows();
    assertThat(rows).extracting(ExecutionRecord::attempt).containsExactly(1, 2);
    assertThat(rows.get(1).node()).isIn("node-2", "node-3");
    assertThat(rows.get(1).outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(rows.get(1).fence()).isGreaterThan(rows.get(0).fence());
  }

  @Test
  void theNextFiringWinsOverARetryThatWouldCollideWithItAndNeverRunsAtTheSameTime() {
    // every 30 s; runs take 5 s and always fail; backoff 20 s: the retry of 0 (due at 25) runs,
    // its own retry (due at 30 + 40 s) would come after the next firing (30) and is dropped
    RetryPolicy retry = new RetryPolicy(5, Duration.ofSeconds(20), MINUTE);
    threeReplicas(
        job(
            Schedule.every(Duration.ofSeconds(30), Duration.ZERO),
            retry,
            failingFirst(99, Duration.ofSeconds(5))));
    time.advance(Duration.ofSeconds(50));

    List<ExecutionRecord> rows = rows();
    assertThat(rows)
        .extracting(r -> r.fireTime().getEpochSecond() - T0.getEpochSecond() + "#" + r.attempt())
        .startsWith("0#1", "0#2", "30#1");
    for (int i = 1; i < rows.size(); i++) {
      assertThat(rows.get(i).startedAt()).isAfterOrEqualTo(rows.get(i - 1).finishedAt());
    }
    // attempt 2 of firing 0 is that firing's last row: heard as final
    assertThat(heard.get(1).row().attempt()).isEqualTo(2);
    assertThat(heard.get(1).retrying()).isFalse();
  }

  @Test
  void aTimedOutRunIsRetriedAndALeaseLostOneIsNot() {
    RetryPolicy retry = new RetryPolicy(2, Duration.ofSeconds(2), MINUTE);
    JobPolicy policy =
        new JobPolicy(
            Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(1), MINUTE, retry);
    AtomicInteger runs = new AtomicInteger();
    JobRunner slowOnce =
        ctx -> {
          time.sleep(Duration.ofSeconds(runs.incrementAndGet() == 1 ? 5 : 0));
          return JobResult.succeeded();
        };
    threeReplicas(
        new JobDefinition(
            "flaky", Schedule.every(Duration.ofHours(1), Duration.ZERO), policy, slowOnce));
    time.advance(Duration.ofSeconds(30));

    assertThat(rows())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.TIMED_OUT, Outcome.SUCCEEDED);
    assertThat(rows()).extracting(ExecutionRecord::attempt).containsExactly(1, 2);
  }
}
