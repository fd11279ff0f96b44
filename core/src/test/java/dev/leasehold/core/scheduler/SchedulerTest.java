package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler in virtual time: several schedulers ("replicas") share one store, each with its own
 * wall clock; job bodies are real threads that sleep in virtual time. Every test reads like the
 * guarantee it checks.
 */
class SchedulerTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final List<Run> ledger = new CopyOnWriteArrayList<>();

  /** One execution of a job body as the body itself saw it. */
  record Run(
      String job,
      Instant firing,
      String node,
      long fence,
      Instant started,
      Instant ended,
      boolean leaseLost) {}

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  /** A job body that works for {@code work} of virtual time and writes the ledger. */
  private JobRunner working(Duration work) {
    return ctx -> {
      Instant started = time.now();
      try {
        time.sleep(work);
        return JobResult.succeeded();
      } finally {
        ledger.add(
            new Run(
                ctx.job(),
                ctx.firing(),
                ctx.node(),
                ctx.fence(),
                started,
                time.now(),
                ctx.leaseLost()));
      }
    };
  }

  private static JobDefinition job(
      String name, Schedule schedule, JobPolicy policy, JobRunner runner) {
    return new JobDefinition(name, schedule, policy, runner);
  }

  private Scheduler replica(String node, Clock clock, JobDefinition... jobs) {
    Scheduler s =
        Scheduler.builder()
            .node(node)
            .store(server.client())
            .executionLog(history)
            .clock(clock)
            .ticker(time)
            .timer(time)
            .workers(time.workers())
            .jobs(List.of(jobs))
            .build();
    schedulers.add(s);
    return s;
  }

  private List<Instant> firingsRun(String job) {
    return ledger.stream().filter(r -> r.job().equals(job)).map(Run::firing).sorted().toList();
  }

  private static void assertNoOverlap(List<Run> runs) {
    List<Run> sorted = new ArrayList<>(runs);
    sorted.sort((a, b) -> a.started().compareTo(b.started()));
    for (int i = 1; i < sorted.size(); i++) {
      assertThat(sorted.get(i).started())
          .as("run %s starts after run %s ended", sorted.get(i), sorted.get(i - 1))
          .isAfterOrEqualTo(sorted.get(i - 1).ended());
    }
  }

  @Test
  void exactlyOneReplicaRunsEachFiring() {
    JobDefinition[] jobs = {
      job(
          "heartbeat",
          Schedule.every(SECOND, Duration.ZERO),
          JobPolicy.defaults(),
          working(Duration.ofMillis(300))),
      job(
          "minutely",
          Schedule.cron("* * * * *", ZoneOffset.UTC),
          JobPolicy.defaults(),
          working(Duration.ofSeconds(5)))
    };
    for (int i = 1; i <= 3; i++) {
      replica("node-" + i, time.clock(), jobs).start();
    }
    time.advance(Duration.ofMinutes(3).plusSeconds(10));

    List<Instant> beats = firingsRun("heartbeat");
    assertThat(beats).doesNotHaveDuplicates();
    assertThat(beats).containsAll(everySecond(T0.plusSeconds(1), T0.plusSeconds(180)));
    assertThat(firingsRun("minutely"))
        .containsExactly(T0, T0.plusSeconds(60), T0.plusSeconds(120), T0.plusSeconds(180));

    assertFencesRiseWithFirings("heartbeat");
  }

  @Test
  void aJobNewToTheStoreNeverRunsAFiringFromBeforeItsFirstStart() {
    time.advance(Duration.ofSeconds(5)); // T0 is 5 s old: within the default 1 min grace
    startFresh();
  }

  @Test
  void aJobNewToTheStoreNeverRunsAFiringFromJustBeforeItsFirstStart() {
    time.advance(Duration.ofMillis(1500)); // T0 is inside the skew allowance, past the tolerance
    startFresh();
  }

  private void startFresh() {
    replica(
            "node-1",
            time.clock(),
            job(
                "fresh",
                Schedule.every(Duration.ofSeconds(10), Duration.ZERO),
                JobPolicy.defaults(),
                working(Duration.ofMillis(100))))
        .start();
    time.advance(Duration.ofSeconds(12));

    assertThat(firingsRun("fresh"))
        .as("T0 came due before any replica knew the job; T0 + 10 s after")
        .containsExactly(T0.plusSeconds(10));
  }

  private void assertFencesRiseWithFirings(String job) {
    List<Run> runs =
        ledger.stream()
            .filter(r -> r.job().equals(job))
            .sorted((a, b) -> a.firing().compareTo(b.firing()))
            .toList();
    for (int i = 1; i < runs.size(); i++) {
      assertThat(runs.get(i).fence()).isGreaterThan(runs.get(i - 1).fence());
    }
  }

  private static List<Instant> everySecond(Instant fromInclusive, Instant toInclusive) {
    List<Instant> out = new ArrayList<>();
    for (Instant t = fromInclusive; !t.isAfter(toInclusive); t = t.plusSeconds(1)) {
      out.add(t);
    }
    return out;
  }

  @Test
  void aReplicaWhoseClockIsTwoSecondsBehindRunsNothingAlreadyRun() {
    // on a store whose clock it can read, the late replica fires on that clock instead
    // (SchedulerStoreClockTest); here it has only its own
    server.withoutAReadableClock();
    JobDefinition heartbeat =
        job(
            "heartbeat",
            Schedule.every(Duration.ofSeconds(5), Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofMillis(100)));
    replica("on-time", time.clock(), heartbeat).start();
    replica("early", time.clock(Duration.ofMillis(1500)), heartbeat).start();
    time.advance(Duration.ofSeconds(7));
    replica("late", time.clock(Duration.ofSeconds(-2)), heartbeat).start();
    time.advance(Duration.ofMinutes(2).minusSeconds(7));

    assertThat(firingsRun("heartbeat")).as("ledger %s", ledger).doesNotHaveDuplicates().hasSize(25);
    assertThat(ledger).noneMatch(r -> r.node().equals("late"));
    assertNoOverlap(ledger);
  }

  @Test
  void aLateReplicaAloneStillRunsEveryFiringOnce() {
    JobDefinition heartbeat =
        job(
            "heartbeat",
            Schedule.every(Duration.ofSeconds(5), Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofMillis(100)));
    Scheduler onTime = replica("on-time", time.clock(), heartbeat);
    onTime.start();
    replica("late", time.clock(Duration.ofSeconds(-2)), heartbeat).start();
    time.advance(Duration.ofSeconds(30));
    onTime.stop(Duration.ZERO);
    time.advance(Duration.ofSeconds(30));

    // the late replica may also catch up 05:59:55 at start (within the grace, never run): once
    assertThat(firingsRun("heartbeat"))
        .doesNotHaveDuplicates()
        .containsAll(everyNSeconds(T0, 5, 12))
        .allMatch(f -> !f.isBefore(T0.minusSeconds(5)));
    assertThat(ledger.stream().filter(r -> r.node().equals("late"))).isNotEmpty();
  }

  private static List<Instant> everyNSeconds(Instant first, int step, int count) {
    List<Instant> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(first.plusSeconds((long) step * i));
    }
    return out;
  }

  @Test
  void aFiveMinuteJobKeepsAThreeSecondLease() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(3), SECOND, null, null);
    JobDefinition report =
        job(
            "report",
            Schedule.every(Duration.ofMinutes(10), Duration.ofMinutes(5)),
            policy,
            working(Duration.ofMinutes(5)));
    replica("a", time.clock(), report).start();
    replica("b", time.clock(), report).start();
    var probe = server.client();

    time.advance(Duration.ofMinutes(5).plusSeconds(1));
    for (int i = 0; i < 29; i++) {
      time.advance(Duration.ofSeconds(10));
      assertThat(probe.inspect("report").orElseThrow().held())
          .as("held after %ds", 10 * (i + 1))
          .isTrue();
      assertThat(probe.acquire("report", "intruder", SECOND)).isEmpty();
    }
    time.advance(Duration.ofMinutes(1));

    assertThat(ledger).hasSize(1);
    Run run = ledger.get(0);
    assertThat(run.leaseLost()).isFalse();
    assertThat(Duration.between(run.started(), run.ended())).isEqualTo(Duration.ofMinutes(5));
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.SUCCEEDED);
    assertThat(probe.inspect("report").orElseThrow().held()).isFalse();
  }

  @Test
  void aRefusedRenewalStopsTheJobWithinOneRenewInterval() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(30), Duration.ofSeconds(10), null, null);
    replica(
            "a",
            time.clock(),
            job(
                "backup",
                Schedule.every(Duration.ofHours(1), Duration.ofMinutes(30)),
                policy,
                working(Duration.ofMinutes(30))))
        .start();
    time.advance(Duration.ofMinutes(30).plusSeconds(15));
    Instant stolenAt = time.now();
    server.delete("backup"); // someone deletes the lease row while the job runs
    time.advance(Duration.ofMinutes(1));

    assertThat(ledger).hasSize(1);
    Run run = ledger.get(0);
    assertThat(run.leaseLost()).isTrue();
    assertThat(Duration.between(stolenAt, run.ended())).isLessThanOrEqualTo(policy.renewEvery());
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.LEASE_LOST);
  }

  @Test
  void anUnreachableStoreStopsTheJobBeforeTheLeaseMustBePresumedExpired() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(30), Duration.ofSeconds(10), null, null);
    replica(
            "a",
            time.clock(),
            job(
                "backup",
                Schedule.every(Duration.ofHours(1), Duration.ofMinutes(30)),
                policy,
                working(Duration.ofMinutes(30))))
        .start();
    time.advance(Duration.ofMinutes(30).plusSeconds(25)); // last renewal at +20s
    server.setReachable(false);
    time.advance(Duration.ofMinutes(2));

    Run run = ledger.get(0);
    assertThat(run.leaseLost()).isTrue();
    Instant presumedExpiry = T0.plus(Duration.ofMinutes(30)).plusSeconds(20).plus(policy.ttl());
    assertThat(run.ended())
        .isBefore(presumedExpiry)
        .isAfter(presumedExpiry.minus(policy.renewEvery()));
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.LEASE_LOST);
  }

  @Test
  void aFiringThatComesWhileThePreviousStillRunsIsSkippedAndRecorded() {
    JobDefinition slow =
        job(
            "slow",
            Schedule.every(Duration.ofSeconds(10), Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofSeconds(25)));
    replica("a", time.clock(), slow).start();
    replica("b", time.clock(), slow).start();
    time.advance(Duration.ofSeconds(65));

    assertThat(firingsRun("slow")).containsExactly(T0, T0.plusSeconds(30));
    List<ExecutionRecord> skipped =
        history.all().stream().filter(r -> r.outcome() == Outcome.SKIPPED).toList();
    assertThat(skipped)
        .extracting(ExecutionRecord::fireTime)
        .containsExactlyInAnyOrder(
            T0.plusSeconds(10), T0.plusSeconds(20), T0.plusSeconds(40), T0.plusSeconds(50));
    assertNoOverlap(ledger);
  }

  @Test
  void aFiringMissedWhileEveryReplicaWasDownRunsOnceOnRestartWithinTheGrace() {
    JobPolicy grace = JobPolicy.of(null, null, null, Duration.ofMinutes(5));
    JobDefinition digest =
        job("digest", Schedule.every(Duration.ofMinutes(1), Duration.ZERO), grace, working(SECOND));
    Scheduler first = replica("a", time.clock(), digest);
    first.start();
    time.advance(Duration.ofMinutes(1).plusSeconds(5)); // 06:01 ran
    first.stop(Duration.ZERO);
    time.advance(Duration.ofMinutes(3).plusSeconds(20)); // 06:02, 06:03, 06:04 missed; now 06:04:25
    replica("b", time.clock(), digest).start();
    replica("c", time.clock(), digest).start();
    time.advance(Duration.ofSeconds(10));

    assertThat(firingsRun("digest")).containsExactly(T0, T0.plusSeconds(60), T0.plusSeconds(240));
  }

  @Test
  void missedFiringsBeyondTheGraceAreDropped() {
    JobPolicy grace = JobPolicy.of(null, null, null, Duration.ofSeconds(30));
    JobDefinition digest =
        job("digest", Schedule.every(Duration.ofMinutes(1), Duration.ZERO), grace, working(SECOND));
    time.advance(Duration.ofMinutes(4).plusSeconds(45));
    replica("b", time.clock(), digest).start();
    time.advance(Duration.ofSeconds(20));
    assertThat(firingsRun("digest")).containsExactly(T0.plusSeconds(300));
  }

  @Test
  void aWallClockJumpCoalescesTheSkippedFiringsIntoOne() {
    // the clock firings come due on jumps: the replica's own, on a store whose clock it cannot
    // read (on one it can, a step of its own clock changes nothing: SchedulerStoreClockTest)
    server.withoutAReadableClock();
    JobPolicy grace = JobPolicy.of(null, null, null, Duration.ofMinutes(10));
    JobDefinition tick =
        job("tick", Schedule.every(Duration.ofMinutes(1), Duration.ZERO), grace, working(SECOND));
    VirtualTime.SkewedClock clock = time.clock(Duration.ZERO);
    replica("a", clock, tick).start();
    time.advance(Duration.ofSeconds(65));
    clock.setSkew(Duration.ofMinutes(5)); // NTP steps the wall clock 5 minutes forward
    time.advance(Duration.ofSeconds(60));

    assertThat(firingsRun("tick")).containsExactly(T0, T0.plusSeconds(60), T0.plusSeconds(420));
  }

  @Test
  void nothingRunsWhileTheStoreIsDownAndTheFiringRunsOnceWhenItReturnsWithinTheGrace() {
    JobPolicy grace = JobPolicy.of(null, null, null, Duration.ofMinutes(2));
    JobDefinition tick =
        job("tick", Schedule.every(Duration.ofMinutes(10), Duration.ZERO), grace, working(SECOND));
    server.setReachable(false);
    replica("a", time.clock(), tick).start();
    replica("b", time.clock(), tick).start();
    time.advance(Duration.ofMinutes(10).plusSeconds(30));
    assertThat(ledger).isEmpty();
    server.setReachable(true);
    time.advance(Duration.ofMinutes(1));
    assertThat(firingsRun("tick")).containsExactly(T0.plusSeconds(600));
  }

  @Test
  void aFiringIsDroppedWhenTheStoreStaysDownPastTheGraceAndLaterFiringsRun() {
    JobPolicy grace = JobPolicy.of(null, null, null, Duration.ofSeconds(30));
    JobDefinition tick =
        job("tick", Schedule.every(Duration.ofMinutes(10), Duration.ZERO), grace, working(SECOND));
    server.setReachable(false);
    replica("a", time.clock(), tick).start();
    time.advance(Duration.ofMinutes(12));
    server.setReachable(true);
    time.advance(Duration.ofMinutes(10));
    assertThat(firingsRun("tick")).containsExactly(T0.plusSeconds(1200));
  }

  @Test
  void aReplicaWhoseClockRunsAheadDoesNotSkipAFiringOthersHaveNotReachedWhenItRestarts() {
    JobDefinition beat =
        job(
            "beat",
            Schedule.every(SECOND, Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofMillis(100)));
    replica("on-time", time.clock(), beat).start();
    Scheduler ahead = replica("ahead", time.clock(Duration.ofMillis(1500)), beat);
    ahead.start();
    time.advance(Duration.ofMillis(5700));
    ahead.stop(Duration.ZERO);
    time.advance(Duration.ofSeconds(5));
    // restart at true T0+10.7 s, when its clock reads T0+12.2 s: firing T0+11 is not due yet
    // anywhere else, and claiming T0+12 first would make the watermark refuse it forever
    replica("ahead-again", time.clock(Duration.ofMillis(1500)), beat).start();
    time.advance(Duration.ofSeconds(20));

    assertThat(firingsRun("beat"))
        .doesNotHaveDuplicates()
        .containsAll(everySecond(T0, T0.plusSeconds(30)));
  }

  @Test
  void firingsThatComeDueTogetherWhileAPausedRunEndsAreEachClaimedNotSkipped() {
    // a paused JVM wakes with its run of T0+5 still open and its wall clock 6 s further on: the
    // firings due just now must queue behind that run, not replace (and skip) each other (the
    // store's clock, which would have moved on too, is not read here: the pause is the skew)
    server.withoutAReadableClock();
    VirtualTime.SkewedClock clock = time.clock(Duration.ZERO);
    JobRunner body =
        ctx -> {
          if (ctx.firing().equals(T0.plusSeconds(5))) {
            clock.setSkew(Duration.ofSeconds(6));
            time.sleep(Duration.ofMillis(1500));
          }
          return working(Duration.ofMillis(100)).run(ctx);
        };
    replica(
            "paused",
            clock,
            job("beat", Schedule.every(SECOND, Duration.ZERO), JobPolicy.defaults(), body))
        .start();
    time.advance(Duration.ofSeconds(10));

    assertThat(firingsRun("beat"))
        .doesNotHaveDuplicates()
        .contains(T0.plusSeconds(5), T0.plusSeconds(11), T0.plusSeconds(12), T0.plusSeconds(13));
    assertThat(history.all()).noneMatch(r -> r.outcome() == Outcome.SKIPPED);
  }

  @Test
  void whenTheStoreReturnsTheNextFiringIsClaimedAtOnceNotAfterTheBackoff() {
    JobDefinition beat =
        job(
            "beat",
            Schedule.every(SECOND, Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofMillis(100)));
    replica("a", time.clock(), beat).start();
    time.advance(Duration.ofMillis(500));
    server.setReachable(false);
    time.advance(Duration.ofMillis(19_800)); // down until T0+20.3 s: backoff has grown to 8 s
    server.setReachable(true);
    time.advance(Duration.ofSeconds(10));

    assertThat(firingsRun("beat"))
        .doesNotHaveDuplicates()
        .containsAll(everySecond(T0.plusSeconds(21), T0.plusSeconds(30)));
    assertThat(firingsRun("beat")).noneMatch(f -> f.isAfter(T0) && f.isBefore(T0.plusSeconds(20)));
  }

  @Test
  void aJobPastItsTimeoutIsStoppedAndItsLeaseReleased() {
    JobPolicy policy = JobPolicy.of(null, null, Duration.ofSeconds(20), Duration.ZERO);
    replica(
            "a",
            time.clock(),
            job(
                "stuck",
                Schedule.every(Duration.ofMinutes(1), Duration.ofSeconds(30)),
                policy,
                working(Duration.ofHours(1))))
        .start();
    time.advance(Duration.ofSeconds(60));
    Run run = ledger.get(0);
    assertThat(Duration.between(run.started(), run.ended())).isEqualTo(Duration.ofSeconds(20));
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.TIMED_OUT);
    assertThat(server.client().inspect("stuck").orElseThrow().held()).isFalse();
  }

  @Test
  void aFailingJobIsRecordedAsFailedAndTheNextFiringStillRuns() {
    JobRunner failing =
        ctx -> {
          throw new IllegalStateException("disk full");
        };
    replica(
            "a",
            time.clock(),
            job(
                "flaky",
                Schedule.every(Duration.ofSeconds(10), Duration.ZERO),
                JobPolicy.defaults(),
                failing))
        .start();
    time.advance(Duration.ofSeconds(25));
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.FAILED, Outcome.FAILED, Outcome.FAILED);
    assertThat(history.all().get(0).detail()).contains("disk full");
  }

  @Test
  void aManualTriggerRunsOnceWithoutMovingTheWatermark() {
    JobDefinition digest =
        job(
            "digest",
            Schedule.every(Duration.ofMinutes(1), Duration.ZERO),
            JobPolicy.defaults(),
            ctx -> JobResult.succeeded());
    Scheduler a = replica("a", time.clock(), digest);
    a.start();
    time.advance(Duration.ofSeconds(70));
    Scheduler cli = replica("cli", time.clock(), digest);
    ExecutionRecord manual = cli.trigger("digest").orElseThrow();
    assertThat(manual.trigger()).isEqualTo(TriggerKind.MANUAL);
    assertThat(manual.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(server.client().inspect("digest").orElseThrow().lastFire())
        .isEqualTo(T0.plusSeconds(60));
    time.advance(Duration.ofSeconds(60));
    assertThat(history.all().stream().filter(r -> r.trigger() == TriggerKind.SCHEDULED))
        .extracting(ExecutionRecord::fireTime)
        .containsExactly(T0, T0.plusSeconds(60), T0.plusSeconds(120));
  }

  @Test
  void aManualTriggerIsRefusedWhileAScheduledRunHoldsTheLease() {
    JobDefinition slow =
        job(
            "slow",
            Schedule.every(Duration.ofMinutes(1), Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofSeconds(30)));
    replica("a", time.clock(), slow).start();
    time.advance(Duration.ofSeconds(65));
    assertThat(replica("cli", time.clock(), slow).trigger("slow")).isEmpty();
  }

  @Test
  void stoppingWaitsForNothingWhenGraceIsZeroAndReleasesTheLease() {
    JobPolicy noGrace = JobPolicy.of(null, null, null, Duration.ZERO);
    JobDefinition slow =
        job(
            "slow",
            Schedule.every(Duration.ofMinutes(1), Duration.ofSeconds(30)),
            noGrace,
            working(Duration.ofMinutes(30)));
    Scheduler a = replica("a", time.clock(), slow);
    a.start();
    time.advance(Duration.ofSeconds(65));
    a.stop(Duration.ZERO);
    assertThat(firingsRun("slow")).containsExactly(T0.plusSeconds(30));
    assertThat(server.client().inspect("slow").orElseThrow().held()).isFalse();
    assertThat(history.all()).extracting(ExecutionRecord::outcome).containsExactly(Outcome.FAILED);
    replica("b", time.clock(), slow).start();
    time.advance(Duration.ofSeconds(30));
    var state = server.client().inspect("slow").orElseThrow();
    assertThat(state.currentHolder()).contains("b");
    assertThat(state.lastFire()).isEqualTo(T0.plusSeconds(90));
  }

  @Test
  void aCrashedHolderBlocksNobodyLongerThanTheTtl() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(10), null, null, null);
    var crashed = server.client();
    crashed
        .claim("tick", T0.plusSeconds(55), "dead-node", policy.ttl())
        .orElseThrow(); // never renewed, never released
    replica(
            "b",
            time.clock(),
            job(
                "tick",
                Schedule.every(Duration.ofMinutes(1), Duration.ZERO),
                policy,
                working(SECOND)))
        .start();
    time.advance(Duration.ofSeconds(61));
    assertThat(firingsRun("tick")).containsExactly(T0.plusSeconds(60));
  }

  @Test
  void manyReplicasWithSkewedClocksNeverRunAFiringTwice() {
    JobDefinition beat =
        job(
            "beat",
            Schedule.every(SECOND, Duration.ZERO),
            JobPolicy.of(Duration.ofSeconds(3), null, null, null),
            working(Duration.ofMillis(700)));
    long[] skews = {-1500, -700, 0, 300, 1500};
    for (int i = 0; i < skews.length; i++) {
      replica("n" + i, time.clock(Duration.ofMillis(skews[i])), beat).start();
    }
    time.advance(Duration.ofSeconds(90));
    List<Instant> firings = firingsRun("beat");
    Set<Instant> unique = new HashSet<>(firings);
    assertThat(unique).hasSameSizeAs(firings);
    assertThat(firings).containsAll(everySecond(T0.plusSeconds(1), T0.plusSeconds(88)));
    assertNoOverlap(ledger);
    assertThat(Collections.max(firings)).isAfterOrEqualTo(T0.plusSeconds(88));
  }

  @Test
  void theJobContextCarriesFiringFenceNodeAndAttempt() {
    List<JobContext> seen = new CopyOnWriteArrayList<>();
    replica(
            "node-x",
            time.clock(),
            job(
                "ctx",
                Schedule.every(Duration.ofMinutes(1), Duration.ofSeconds(30)),
                JobPolicy.of(null, null, null, Duration.ZERO),
                ctx -> {
                  seen.add(ctx);
                  return JobResult.succeeded();
                }))
        .start();
    time.advance(Duration.ofMinutes(2));
    assertThat(seen)
        .extracting(JobContext::firing)
        .containsExactly(T0.plusSeconds(30), T0.plusSeconds(90));
    assertThat(seen.get(0).node()).isEqualTo("node-x");
    assertThat(seen.get(0).attempt()).isEqualTo(1);
    assertThat(seen.get(1).fence()).isGreaterThan(seen.get(0).fence());
    assertThat(seen.get(0).trigger()).isEqualTo(TriggerKind.SCHEDULED);
  }
}
