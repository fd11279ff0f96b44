package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous bodies ({@link AsyncJobRunner}) in virtual time: the body's future is completed by a
 * timer, so no worker waits while it runs; the guarantees are those of a blocking body: each firing
 * runs once, the lease is renewed while it runs, a lost lease, the timeout and a stop cancel it,
 * and the history records every run with its outcome.
 */
class SchedulerAsyncRunTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final List<Run> ledger = new CopyOnWriteArrayList<>();

  /** One body as it saw itself end: cancelled means a stop reached its future. */
  record Run(
      String job,
      Instant firing,
      String node,
      long fence,
      Instant started,
      Instant ended,
      boolean cancelled,
      boolean leaseLost) {}

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  /** A body that ends after {@code work} of virtual time, with {@code result}. */
  private AsyncJobRunner async(Duration work, JobResult result) {
    return ctx -> {
      Instant started = time.now();
      CompletableFuture<JobResult> body = new CompletableFuture<>();
      Cancellable end = time.schedule(() -> body.complete(result), work);
      body.whenComplete(
          (r, e) -> {
            end.cancel();
            ledger.add(
                new Run(
                    ctx.job(),
                    ctx.firing(),
                    ctx.node(),
                    ctx.fence(),
                    started,
                    time.now(),
                    body.isCancelled(),
                    ctx.leaseLost()));
          });
      return body;
    };
  }

  private Scheduler replica(String node, JobDefinition... jobs) {
    Scheduler s =
        Scheduler.builder()
            .node(node)
            .store(server.client())
            .executionLog(history)
            .clock(time.clock())
            .ticker(time)
            .timer(time)
            .workers(time.workers())
            .jobs(List.of(jobs))
            .build();
    schedulers.add(s);
    return s;
  }

  private List<Outcome> outcomes(String job) {
    return history.all().stream()
        .filter(r -> r.job().equals(job))
        .map(ExecutionRecord::outcome)
        .toList();
  }

  @Test
  void jobsDueTogetherRunEachFiringOnceAndEveryRunIsRecorded() {
    JobDefinition[] jobs = new JobDefinition[20];
    for (int i = 0; i < jobs.length; i++) {
      jobs[i] =
          new JobDefinition(
              "storm-" + i,
              Schedule.every(SECOND, Duration.ZERO),
              JobPolicy.defaults(),
              async(Duration.ofMillis(300), JobResult.succeeded()));
    }
    for (int r = 1; r <= 3; r++) {
      replica("node-" + r, jobs).start();
    }
    time.advance(Duration.ofSeconds(30).plusMillis(500));

    for (JobDefinition job : jobs) {
      List<Instant> firings =
          ledger.stream()
              .filter(run -> run.job().equals(job.name()))
              .map(Run::firing)
              .sorted()
              .toList();
      assertThat(firings).doesNotHaveDuplicates();
      for (int second = 1; second <= 30; second++) {
        assertThat(firings).contains(T0.plusSeconds(second));
      }
      assertThat(outcomes(job.name())).hasSameSizeAs(firings).containsOnly(Outcome.SUCCEEDED);
      assertThat(server.client().inspect(job.name()).orElseThrow().held()).isFalse();
    }
    assertThat(ledger).noneMatch(Run::cancelled);
  }

  @Test
  void theLeaseIsRenewedWhileTheBodyRunsAndALostLeaseCancelsIt() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(30), Duration.ofSeconds(10), null, null);
    replica(
            "a",
            new JobDefinition(
                "backup",
                Schedule.every(Duration.ofHours(1), Duration.ofMinutes(30)),
                policy,
                async(Duration.ofMinutes(30), JobResult.succeeded())))
        .start();
    time.advance(Duration.ofMinutes(30).plusSeconds(45)); // three renewals past the 30 s ttl
    assertThat(server.client().inspect("backup").orElseThrow().held()).isTrue();
    assertThat(ledger).isEmpty();
    Instant stolenAt = time.now();
    server.delete("backup"); // someone deletes the lease row while the job runs
    time.advance(Duration.ofMinutes(1));

    assertThat(ledger).hasSize(1);
    Run run = ledger.get(0);
    assertThat(run.cancelled()).isTrue();
    assertThat(run.leaseLost()).isTrue();
    assertThat(Duration.between(stolenAt, run.ended())).isLessThanOrEqualTo(policy.renewEvery());
    assertThat(outcomes("backup")).containsExactly(Outcome.LEASE_LOST);
  }

  @Test
  void aBodyPastItsTimeoutIsCancelledAndItsLeaseReleased() {
    JobPolicy policy = JobPolicy.of(null, null, Duration.ofSeconds(20), Duration.ZERO);
    replica(
            "a",
            new JobDefinition(
                "stuck",
                Schedule.every(Duration.ofMinutes(1), Duration.ofSeconds(30)),
                policy,
                async(Duration.ofHours(1), JobResult.succeeded())))
        .start();
    time.advance(Duration.ofSeconds(60));

    Run run = ledger.get(0);
    assertThat(run.cancelled()).isTrue();
    assertThat(Duration.between(run.started(), run.ended())).isEqualTo(Duration.ofSeconds(20));
    assertThat(outcomes("stuck")).containsExactly(Outcome.TIMED_OUT);
    assertThat(server.client().inspect("stuck").orElseThrow().held()).isFalse();
  }

  @Test
  void aStopWithoutGraceCancelsTheBodyRecordsItAndReleasesTheLease() {
    JobPolicy noGrace = JobPolicy.of(null, null, null, Duration.ZERO);
    Scheduler a =
        replica(
            "a",
            new JobDefinition(
                "slow",
                Schedule.every(Duration.ofMinutes(1), Duration.ofSeconds(30)),
                noGrace,
                async(Duration.ofMinutes(30), JobResult.succeeded())));
    a.start();
    time.advance(Duration.ofSeconds(65));
    a.stop(Duration.ZERO);

    assertThat(ledger).singleElement().matches(Run::cancelled);
    assertThat(outcomes("slow")).containsExactly(Outcome.FAILED);
    assertThat(server.client().inspect("slow").orElseThrow().held()).isFalse();
  }

  @Test
  void aFailedBodyOrAFailingStartIsRecordedAndTheNextFiringsStillRun() {
    AsyncJobRunner throwing =
        ctx -> {
          throw new IllegalStateException("no connection");
        };
    AsyncJobRunner failingLater =
        ctx -> CompletableFuture.failedFuture(new IllegalStateException("reset by peer"));
    replica(
            "a",
            new JobDefinition(
                "throws", Schedule.every(SECOND, Duration.ZERO), JobPolicy.defaults(), throwing),
            new JobDefinition(
                "fails", Schedule.every(SECOND, Duration.ZERO), JobPolicy.defaults(), failingLater),
            new JobDefinition(
                "answers",
                Schedule.every(SECOND, Duration.ZERO),
                JobPolicy.defaults(),
                async(Duration.ofMillis(100), JobResult.failed("HTTP 503"))))
        .start();
    time.advance(Duration.ofSeconds(3).plusMillis(500));

    // the firings at 0 s (the start), 1 s, 2 s and 3 s
    assertThat(outcomes("throws")).hasSize(4).containsOnly(Outcome.FAILED);
    assertThat(outcomes("fails")).hasSize(4).containsOnly(Outcome.FAILED);
    assertThat(outcomes("answers")).hasSize(4).containsOnly(Outcome.FAILED);
    assertThat(history.all())
        .filteredOn(r -> r.job().equals("fails"))
        .extracting(ExecutionRecord::detail)
        .containsOnly("java.lang.IllegalStateException: reset by peer");
    assertThat(history.all())
        .filteredOn(r -> r.job().equals("answers"))
        .extracting(ExecutionRecord::detail)
        .containsOnly("HTTP 503");
  }
}
