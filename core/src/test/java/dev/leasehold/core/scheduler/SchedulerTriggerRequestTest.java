package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests of {@code leasehold trigger} in virtual time: three replicas share one store and one
 * history and read the request queue every second; the history is the ledger.
 */
class SchedulerTriggerRequestTest {
  /** Half a minute after the hourly firing of 06:00: the next one is at {@link #SEVEN}. */
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:30Z");

  private static final Instant SEVEN = Instant.parse("2026-11-30T07:00:00Z");
  private static final Duration HOUR = Duration.ofHours(1);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private void threeReplicas(JobDefinition job) {
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
              .job(job)
              .takeTriggerRequests(Duration.ofSeconds(1))
              .build();
      schedulers.add(s);
      s.start();
    }
  }

  private JobRunner working(Duration work) {
    return ctx -> {
      time.sleep(work);
      return JobResult.succeeded();
    };
  }

  private static JobDefinition hourly(String name, JobRunner runner) {
    return new JobDefinition(
        name, Schedule.every(HOUR, Duration.ZERO), JobPolicy.defaults(), runner);
  }

  private TriggerRequest request(String job, Duration open) {
    TriggerRequest r = TriggerRequest.create(job, "ops/cli", time.clock().instant(), open);
    history.record(r.requestRow());
    return r;
  }

  private List<ExecutionRecord> rows(String job) {
    List<ExecutionRecord> rows = new ArrayList<>(history.recent(job, 100));
    rows.sort(Comparator.comparing(ExecutionRecord::startedAt));
    return rows;
  }

  @Test
  void aRequestRunsOnceOnOneReplicaAndLeavesTheScheduledFiringsAlone() {
    threeReplicas(hourly("report", working(Duration.ofSeconds(5))));
    time.advance(Duration.ofMinutes(10));
    TriggerRequest r = request("report", Duration.ofMinutes(1));
    time.advance(Duration.ofMinutes(2));

    List<ExecutionRecord> runs = rows("report");
    assertThat(runs).hasSize(1);
    ExecutionRecord run = runs.get(0);
    assertThat(run.trigger()).isEqualTo(TriggerKind.MANUAL);
    assertThat(run.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(run.fireTime()).isEqualTo(r.at());
    assertThat(run.node()).startsWith("node-");
    assertThat(run.detail()).isEqualTo("triggered by request " + r.id() + " from ops/cli");
    assertThat(r.runIn(runs)).contains(run);
    List<ExecutionRecord> queue = history.recent(TriggerRequest.QUEUE, 100);
    assertThat(queue)
        .extracting(ExecutionRecord::outcome)
        .containsOnly(Outcome.REQUESTED, Outcome.TAKEN);
    assertThat(r.takenIn(queue)).get().extracting(ExecutionRecord::node).isEqualTo(run.node());
    assertThat(queue).filteredOn(q -> q.outcome() == Outcome.TAKEN).hasSize(1);

    // the watermark did not move: the next scheduled firing runs, once
    time.advance(HOUR);
    assertThat(rows("report"))
        .filteredOn(x -> x.trigger() == TriggerKind.SCHEDULED)
        .extracting(ExecutionRecord::fireTime, ExecutionRecord::outcome)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(SEVEN, Outcome.SUCCEEDED));
    assertThat(rows("report")).hasSize(2);
  }

  @Test
  void aRequestWaitsForTheScheduledRunItMeetsAndNeverOverlapsIt() {
    threeReplicas(hourly("backup", working(Duration.ofSeconds(30))));
    time.advance(Duration.between(T0, SEVEN).plusSeconds(5)); // 07:00 runs until 07:00:30
    TriggerRequest r = request("backup", Duration.ofMinutes(1));
    time.advance(Duration.ofMinutes(2));

    List<ExecutionRecord> runs = rows("backup");
    assertThat(runs)
        .extracting(ExecutionRecord::trigger)
        .containsExactly(TriggerKind.SCHEDULED, TriggerKind.MANUAL);
    assertThat(runs.get(1).startedAt()).isAfterOrEqualTo(runs.get(0).finishedAt());
    assertThat(r.runIn(runs)).isPresent();
    assertThat(runs.get(1).fence()).isGreaterThan(runs.get(0).fence());
  }

  @Test
  void aRequestWhoseTakerDiedBeforeStartingIsTakenByAnotherReplicaAfterTheTtl() {
    threeReplicas(hourly("report", working(Duration.ofSeconds(1))));
    time.advance(Duration.ofMinutes(10));
    // a replica took the job's lease for the request and died before writing its taken row
    LeaseStore dead = server.client();
    Lease held = dead.acquire("report", "node-dead", Duration.ofSeconds(30)).orElseThrow();
    Instant heldAt = time.clock().instant();
    TriggerRequest r = request("report", Duration.ofMinutes(1));
    time.advance(Duration.ofMinutes(2));

    List<ExecutionRecord> runs = rows("report");
    assertThat(runs).hasSize(1);
    assertThat(r.runIn(runs)).isPresent();
    assertThat(runs.get(0).startedAt()).isAfterOrEqualTo(heldAt.plus(held.ttl()));
    assertThat(runs.get(0).fence()).isGreaterThan(held.fence());
  }

  @Test
  void aRequestNobodyTakesInTimeNeverRuns() {
    threeReplicas(hourly("report", working(Duration.ofSeconds(1))));
    time.advance(Duration.ofMinutes(10));
    // the only holder keeps the lease beyond the request's window: nobody may start it later
    server.client().acquire("report", "node-busy", Duration.ofSeconds(40)).orElseThrow();
    TriggerRequest late = request("report", Duration.ofSeconds(20));
    TriggerRequest unknown = request("no-such-job", Duration.ofMinutes(1));
    time.advance(Duration.ofMinutes(3));

    assertThat(rows("report")).isEmpty();
    List<ExecutionRecord> queue = history.recent(TriggerRequest.QUEUE, 100);
    assertThat(late.takenIn(queue)).isEmpty();
    assertThat(unknown.takenIn(queue)).isEmpty();
  }

  @Test
  void threeRequestsAtOnceRunThreeTimesOneAfterTheOther() {
    threeReplicas(hourly("report", working(Duration.ofSeconds(5))));
    time.advance(Duration.ofMinutes(10));
    List<TriggerRequest> requests = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      requests.add(request("report", Duration.ofMinutes(1)));
      time.advance(Duration.ofMillis(1));
    }
    time.advance(Duration.ofMinutes(2));

    List<ExecutionRecord> runs = rows("report");
    assertThat(runs).hasSize(3);
    for (TriggerRequest r : requests) {
      assertThat(r.runIn(runs)).as("request %s", r.id()).isPresent();
    }
    for (int i = 1; i < runs.size(); i++) {
      assertThat(runs.get(i).startedAt()).isAfterOrEqualTo(runs.get(i - 1).finishedAt());
    }
  }

  @Test
  void aRequestRowReadsBackAsTheSameRequest() {
    TriggerRequest r =
        TriggerRequest.create("report", "ops/cli", T0.plusNanos(1_234_567), Duration.ofSeconds(60));
    assertThat(r.at()).isEqualTo(T0.plusMillis(1));
    assertThat(r.until()).isEqualTo(T0.plusMillis(1).plusSeconds(60));
    assertThat(TriggerRequest.of(r.requestRow())).contains(r);
    assertThat(TriggerRequest.of(r.takenRow("node-1", 7, T0))).isEmpty();
    assertThat(r.takenIn(List.of(r.takenRow("node-1", 7, T0)))).isPresent();
    assertThat(r.requestedIn(List.of(r.requestRow()))).isTrue();
  }
}
