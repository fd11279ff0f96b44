package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.schedule.AfterSchedule;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Chains ({@code after:}) and backfills in virtual time: three replicas share one store and one
 * history and read the request queue every second; the history is the ledger.
 */
class SchedulerChainAndBackfillTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:30Z");
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();

  /** Upstream fences the children saw, by the child's firing. */
  private final Map<String, Long> upstreamFences = new ConcurrentHashMap<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private Scheduler replica(String node, JobDefinition... jobs) {
    return replica(node, true, jobs);
  }

  private Scheduler replica(String node, boolean takes, JobDefinition... jobs) {
    Scheduler.Builder b =
        Scheduler.builder()
            .node(node)
            .store(server.client())
            .executionLog(history)
            .clock(time.clock())
            .ticker(time)
            .timer(time)
            .workers(time.workers());
    if (takes) {
      b.takeTriggerRequests(Duration.ofSeconds(1));
    }
    for (JobDefinition job : jobs) {
      b.job(job);
    }
    Scheduler s = b.build();
    schedulers.add(s);
    s.start();
    return s;
  }

  private JobRunner working(Duration work, AtomicBoolean fail) {
    return ctx -> {
      ctx.upstreamFence().ifPresent(f -> upstreamFences.put(ctx.job() + "@" + ctx.firing(), f));
      time.sleep(work);
      return fail.get() ? JobResult.failed("told to") : JobResult.succeeded();
    };
  }

  private JobDefinition everyMinute(String name, AtomicBoolean fail) {
    return new JobDefinition(
        name,
        Schedule.every(MINUTE, Duration.ZERO),
        JobPolicy.defaults(),
        working(Duration.ofSeconds(2), fail));
  }

  private JobDefinition after(String name, String upstream, AfterSchedule.On... on) {
    return new JobDefinition(
        name,
        new AfterSchedule(upstream, Set.of(on)),
        JobPolicy.defaults(),
        working(Duration.ofSeconds(1), new AtomicBoolean()));
  }

  private List<ExecutionRecord> rows(String job) {
    List<ExecutionRecord> rows = new ArrayList<>(history.recent(job, 1000));
    rows.sort(Comparator.comparing(ExecutionRecord::startedAt));
    return rows;
  }

  @Test
  void aChainRunsEachChildOncePerSucceededUpstreamFiringUnderItsInstant() {
    AtomicBoolean backupFails = new AtomicBoolean();
    JobDefinition[] jobs = {
      everyMinute("backup", backupFails),
      after("verify", "backup"),
      after("report", "verify"),
      after("alarm", "backup", AfterSchedule.On.FAILED)
    };
    for (int i = 1; i <= 3; i++) {
      replica("node-" + i, jobs);
    }
    time.advance(Duration.ofMinutes(3).plusSeconds(10)); // 06:01, 06:02, 06:03 succeed
    backupFails.set(true);
    time.advance(Duration.ofMinutes(2)); // 06:04, 06:05 fail
    backupFails.set(false);
    time.advance(Duration.ofMinutes(1)); // 06:06 succeeds
    time.advance(Duration.ofSeconds(30));

    List<Instant> succeeded =
        rows("backup").stream()
            .filter(r -> r.outcome() == Outcome.SUCCEEDED)
            .map(ExecutionRecord::fireTime)
            .toList();
    List<Instant> failed =
        rows("backup").stream()
            .filter(r -> r.outcome() == Outcome.FAILED)
            .map(ExecutionRecord::fireTime)
            .toList();
    assertThat(succeeded).hasSizeGreaterThanOrEqualTo(4);
    assertThat(failed).hasSize(2);
    for (String child : List.of("verify", "report")) {
      assertThat(rows(child))
          .as(child)
          .extracting(ExecutionRecord::fireTime, ExecutionRecord::trigger, ExecutionRecord::outcome)
          .containsExactlyElementsOf(
              succeeded.stream().map(f -> tuple(f, TriggerKind.AFTER, Outcome.SUCCEEDED)).toList());
    }
    assertThat(rows("alarm"))
        .extracting(ExecutionRecord::fireTime)
        .containsExactlyElementsOf(failed);
    // each child saw its upstream run's fence
    for (ExecutionRecord up : rows("backup")) {
      if (up.outcome() == Outcome.SUCCEEDED) {
        assertThat(upstreamFences.get("verify@" + up.fireTime())).isEqualTo(up.fence());
      }
    }
    for (ExecutionRecord v : rows("verify")) {
      assertThat(rows("report"))
          .filteredOn(r -> r.fireTime().equals(v.fireTime()))
          .singleElement()
          .satisfies(r -> assertThat(r.startedAt()).isAfterOrEqualTo(v.finishedAt()));
    }
  }

  @Test
  void theChildRunsOnAnotherReplicaWhenTheUpstreamsReplicaDiesRightAfterItsSuccess() {
    AtomicBoolean never = new AtomicBoolean();
    // node-1 runs the upstream and takes no request: as if it died right after its success
    Scheduler upstream =
        replica("node-1", false, everyMinute("backup", never), after("verify", "backup"));
    replica("node-2", after("verify", "backup"));
    replica("node-3", after("verify", "backup"));
    time.advance(MINUTE); // 06:01 runs on node-1 (2 s)
    upstream.stop(Duration.ZERO);
    time.advance(Duration.ofMinutes(2));

    ExecutionRecord backup = rows("backup").get(0);
    assertThat(backup.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(rows("verify"))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.fireTime()).isEqualTo(backup.fireTime());
              assertThat(v.node()).isIn("node-2", "node-3");
              assertThat(v.fence()).isPositive();
            });
  }

  @Test
  void aPausedChildWaitsForItsResumeAndThenRunsOnce() {
    AtomicBoolean never = new AtomicBoolean();
    JobDefinition[] jobs = {everyMinute("backup", never), after("verify", "backup")};
    for (int i = 1; i <= 3; i++) {
      replica("node-" + i, jobs);
    }
    InMemoryLeaseStore pauser = server.client();
    pauser.pause("verify", "ops", "disk check", false);
    time.advance(Duration.ofMinutes(2)); // 06:01 and 06:02 succeed
    assertThat(rows("verify")).isEmpty();
    pauser.resume("verify", false);
    time.advance(Duration.ofSeconds(10));
    assertThat(rows("verify"))
        .extracting(ExecutionRecord::fireTime)
        .containsExactlyInAnyOrder(
            Instant.parse("2026-11-30T06:01:00Z"), Instant.parse("2026-11-30T06:02:00Z"));
  }

  @Test
  void aHandOffWrittenTwiceIsOneRun() {
    replica("node-1", after("verify", "backup"));
    replica("node-2", after("verify", "backup"));
    ExecutionRecord up =
        new ExecutionRecord(
            "backup",
            Instant.parse("2026-11-30T05:00:00Z"),
            "node-x",
            41,
            TriggerKind.SCHEDULED,
            T0,
            T0,
            Outcome.SUCCEEDED,
            0,
            null);
    history.record(TriggerRequest.after("verify", up, "node-x", T0).requestRow());
    time.advance(Duration.ofMillis(5));
    history.record(
        TriggerRequest.after("verify", up, "node-x", time.clock().instant()).requestRow());
    time.advance(Duration.ofMinutes(1));
    assertThat(rows("verify"))
        .singleElement()
        .extracting(ExecutionRecord::fireTime)
        .isEqualTo(up.fireTime());
  }

  @Test
  void aBackfillRunsEachMissingFiringOnceUnderItsInstantAndAWiderOneOnlyTheNewOnes() {
    AtomicBoolean fails = new AtomicBoolean(true);
    JobDefinition[] jobs = {everyMinute("etl", fails), after("load", "etl")};
    for (int i = 1; i <= 3; i++) {
      replica("node-" + i, jobs);
    }
    time.advance(Duration.ofMinutes(10)); // 06:01 .. 06:10 all failed
    fails.set(false);
    Instant from = Instant.parse("2026-11-30T06:03:00Z");
    List<Instant> five = firings(from, from.plus(Duration.ofMinutes(5)));
    assertThat(five).hasSize(5);
    // two backfills of the same range at once: still once per firing
    five.forEach(this::backfill);
    five.forEach(this::backfill);
    time.advance(Duration.ofMinutes(2));

    assertThat(backfilled())
        .extracting(ExecutionRecord::fireTime, ExecutionRecord::outcome)
        .containsExactlyInAnyOrderElementsOf(
            five.stream().map(f -> tuple(f, Outcome.SUCCEEDED)).toList());
    // a chain child follows each backfilled success
    assertThat(rows("load")).filteredOn(r -> five.contains(r.fireTime())).hasSize(5);

    // a wider backfill: only the two firings not yet succeeded run
    firings(from.minus(Duration.ofMinutes(2)), from.plus(Duration.ofMinutes(5)))
        .forEach(this::backfill);
    time.advance(Duration.ofMinutes(2));
    assertThat(backfilled()).hasSize(7);
    assertThat(backfilled())
        .extracting(ExecutionRecord::fireTime)
        .doesNotHaveDuplicates()
        .contains(Instant.parse("2026-11-30T06:01:00Z"), Instant.parse("2026-11-30T06:02:00Z"));
  }

  @Test
  void aBackfillNeverRunsAFiringTheScheduleMayStillClaimOrRetry() {
    AtomicBoolean fails = new AtomicBoolean(true);
    replica("node-1", everyMinute("etl", fails));
    time.advance(Duration.ofMinutes(3).plusSeconds(5)); // 06:01, 06:02, 06:03 failed
    fails.set(false);
    backfill(Instant.parse("2026-11-30T06:03:00Z")); // the latest claimed: its next is not claimed
    time.advance(Duration.ofSeconds(5));
    assertThat(backfilled()).isEmpty();
    JobPolicy policy = JobPolicy.defaults();
    Schedule schedule = Schedule.every(MINUTE, Duration.ZERO);
    Instant now = Instant.parse("2026-11-30T06:10:00Z");
    // above the watermark: only past the horizon (grace + skew allowance + TTL)
    assertThat(BackfillRule.refusal(schedule, policy, now.minusSeconds(60), null, now)).isPresent();
    assertThat(BackfillRule.refusal(schedule, policy, now.minusSeconds(180), null, now)).isEmpty();
    // at or below it: once its next firing was claimed
    Instant w = now.minusSeconds(60);
    assertThat(BackfillRule.refusal(schedule, policy, w, w, now)).isPresent();
    assertThat(BackfillRule.refusal(schedule, policy, w.minusSeconds(60), w, now)).isEmpty();
  }

  private void backfill(Instant firing) {
    history.record(
        TriggerRequest.backfill(
                "etl", firing, "ops/cli", time.clock().instant(), Duration.ofMinutes(10))
            .requestRow());
    time.advance(Duration.ofMillis(1));
  }

  private List<ExecutionRecord> backfilled() {
    return rows("etl").stream().filter(r -> r.trigger() == TriggerKind.BACKFILL).toList();
  }

  private static List<Instant> firings(Instant from, Instant to) {
    List<Instant> out = new ArrayList<>();
    Schedule s = Schedule.every(MINUTE, Duration.ZERO);
    for (Instant f = s.nextAfter(from.minusMillis(1)).orElseThrow();
        f.isBefore(to);
        f = s.nextAfter(f).orElseThrow()) {
      out.add(f);
    }
    return out;
  }
}
