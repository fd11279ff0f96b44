package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import dev.leasehold.core.time.Cancellable;
import dev.leasehold.core.time.TaskTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler against faults beyond a plain outage, in virtual time with several replicas on one
 * in-memory store: a dead holder, a paused (SIGSTOP/SIGCONT) replica, answers that come late, and
 * batches with a failing entry. Store wrappers here stand for a broken or slow server around the
 * reference store; they never decide a claim themselves.
 */
class SchedulerFaultsTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();
  private final List<Run> ledger = new CopyOnWriteArrayList<>();
  private final List<Instant> missedHeard = new CopyOnWriteArrayList<>();
  private final Map<String, Freezer> freezers = new ConcurrentHashMap<>();

  record Run(String job, Instant firing, String node, boolean leaseLost) {}

  @AfterEach
  void tearDown() {
    freezers.values().forEach(Freezer::thaw);
    time.advance(Duration.ofSeconds(5)); // lets delayed store answers arrive
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  private JobRunner working(Duration work) {
    return ctx -> {
      try {
        time.sleep(work);
        Freezer freezer = freezers.get(ctx.node());
        if (freezer != null) {
          freezer.awaitThaw();
        }
        return JobResult.succeeded();
      } finally {
        ledger.add(new Run(ctx.job(), ctx.firing(), ctx.node(), ctx.leaseLost()));
      }
    };
  }

  private Scheduler replica(String node, LeaseStore store, JobDefinition... jobs) {
    Freezer freezer = freezers.get(node);
    Scheduler s =
        Scheduler.builder()
            .node(node)
            .store(store)
            .executionLog(history)
            .clock(time.clock())
            .ticker(time)
            .timer(freezer == null ? time : freezer)
            .workers(freezer == null ? time.workers() : freezer.workers())
            .listener(
                new SchedulerListener() {
                  @Override
                  public void firingMissed(String job, Instant firing) {
                    missedHeard.add(firing);
                  }
                })
            .jobs(List.of(jobs))
            .build();
    schedulers.add(s);
    return s;
  }

  private List<Instant> firingsRun() {
    return ledger.stream().map(Run::firing).sorted().toList();
  }

  private List<Instant> recorded(Outcome outcome) {
    return history.all().stream()
        .filter(r -> r.outcome() == outcome)
        .map(ExecutionRecord::fireTime)
        .sorted()
        .toList();
  }

  private void assertAtMostOneRowPerFiring() {
    Map<Instant, List<ExecutionRecord>> byFiring =
        history.all().stream().collect(Collectors.groupingBy(ExecutionRecord::fireTime));
    byFiring.forEach(
        (firing, rows) -> assertThat(rows).as("history rows of firing %s", firing).hasSize(1));
  }

  // --- missed and skipped, once cluster-wide ---------------------------------------------------

  @Test
  void firingsNoReplicaRanWhileADeadHolderKeptTheLeaseAreReportedMissedOnce() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(10), null, null, null);
    JobDefinition beat =
        new JobDefinition(
            "beat", Schedule.every(SECOND, Duration.ZERO), policy, working(Duration.ofMillis(100)));
    server.client().claim("beat", T0, "dead-node", policy.ttl()).orElseThrow(); // never released
    replica("b", server.client(), beat).start();
    replica("c", server.client(), beat).start();
    time.advance(Duration.ofSeconds(30));

    List<Instant> missed = recorded(Outcome.MISSED);
    assertThat(missed)
        .as("history %s", history.all())
        .contains(T0.plusSeconds(1), T0.plusSeconds(5));
    assertThat(missed).allMatch(f -> f.isAfter(T0) && f.isBefore(T0.plusSeconds(10)));
    assertThat(missedHeard).containsExactlyInAnyOrderElementsOf(missed);
    assertThat(firingsRun()).doesNotHaveDuplicates().doesNotContainAnyElementsOf(missed);
    // every firing from the lease's end on runs, each once, with one history row each
    for (Instant f = T0.plusSeconds(10); f.isBefore(T0.plusSeconds(29)); f = f.plusSeconds(1)) {
      assertThat(firingsRun()).contains(f);
    }
    for (Instant f = T0.plusSeconds(1); f.isBefore(T0.plusSeconds(10)); f = f.plusSeconds(1)) {
      assertThat(missed.contains(f) || firingsRun().contains(f))
          .as("firing %s is run or reported", f)
          .isTrue();
    }
    assertThat(recorded(Outcome.SKIPPED)).isEmpty();
    assertAtMostOneRowPerFiring();
  }

  @Test
  void firingsNobodyCouldClaimWhileTheStoreWasDownAreReportedMissedOnceWhenItReturns() {
    JobDefinition tick =
        new JobDefinition(
            "tick",
            Schedule.every(Duration.ofMinutes(10), Duration.ZERO),
            JobPolicy.of(null, null, null, Duration.ofSeconds(30)),
            working(SECOND));
    server.setReachable(false);
    replica("a", server.client(), tick).start();
    replica("b", server.client(), tick).start();
    time.advance(Duration.ofMinutes(12));
    assertThat(history.all()).isEmpty(); // nothing can be decided while the store is down
    server.setReachable(true);
    time.advance(Duration.ofMinutes(10));

    assertThat(recorded(Outcome.MISSED)).containsExactly(T0, T0.plusSeconds(600));
    assertThat(missedHeard).containsExactlyInAnyOrder(T0, T0.plusSeconds(600));
    assertThat(firingsRun()).containsExactly(T0.plusSeconds(1200));
    assertAtMostOneRowPerFiring();
  }

  @Test
  void aResumedReplicaRecordsNothingForFiringsAnotherReplicaRan() {
    // SIGSTOP while it runs a firing, SIGCONT 23 s later: its lease expired, the other replica ran
    // the firings meanwhile, and the resumed one's late timer must not call them skipped
    JobDefinition beat =
        new JobDefinition(
            "beat",
            Schedule.every(Duration.ofSeconds(5), Duration.ZERO),
            JobPolicy.of(Duration.ofSeconds(3), SECOND, null, null),
            ctx -> {
              if (ctx.firing().equals(T0.plusSeconds(5))) {
                // frozen mid-run; once resumed it takes another second to stop (as a process
                // tree does after SIGTERM), so its late timer comes while it still runs
                Freezer freezer = freezers.get(ctx.node());
                freezer.freeze();
                Instant until = null;
                while (until == null || time.now().isBefore(until)) {
                  try {
                    time.sleep(Duration.ofMillis(100));
                  } catch (InterruptedException stopRequested) {
                    // keeps going until its second is over
                  }
                  if (until == null && !freezer.frozen()) {
                    until = time.now().plusSeconds(1);
                  }
                }
                ledger.add(new Run(ctx.job(), ctx.firing(), ctx.node(), ctx.leaseLost()));
                return JobResult.succeeded();
              }
              return working(Duration.ofMillis(500)).run(ctx);
            });
    freezers.put("a", new Freezer(time));
    freezers.put("b", new Freezer(time));
    replica("a", server.client(), beat).start();
    replica("b", server.client(), beat).start();
    time.advance(Duration.ofSeconds(6));
    freezers.values().stream().filter(Freezer::frozen).findFirst().orElseThrow();
    time.advance(Duration.ofSeconds(22)); // true T0+28: firing T0+25 is 3 s old, past the skew
    freezers.values().forEach(Freezer::thaw);
    time.advance(Duration.ofSeconds(20));

    List<Instant> run =
        ledger.stream().filter(r -> !r.leaseLost()).map(Run::firing).sorted().toList();
    assertThat(run).doesNotHaveDuplicates();
    assertThat(run).contains(T0.plusSeconds(10), T0.plusSeconds(25), T0.plusSeconds(40));
    assertThat(recorded(Outcome.SKIPPED)).doesNotContainAnyElementsOf(run);
    assertThat(recorded(Outcome.MISSED)).doesNotContainAnyElementsOf(run);
    assertThat(history.all())
        .filteredOn(r -> r.fireTime().equals(T0.plusSeconds(5)))
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.LEASE_LOST);
    assertAtMostOneRowPerFiring();
  }

  @Test
  void aFiringSkippedBehindALongRunIsRecordedOnceAsSkippedNotMissed() {
    JobDefinition slow =
        new JobDefinition(
            "slow",
            Schedule.every(Duration.ofSeconds(10), Duration.ZERO),
            JobPolicy.of(null, null, null, Duration.ofSeconds(5)),
            working(Duration.ofSeconds(25)));
    replica("a", server.client(), slow).start();
    replica("b", server.client(), slow).start();
    time.advance(Duration.ofSeconds(120));

    assertThat(recorded(Outcome.SKIPPED)).contains(T0.plusSeconds(10), T0.plusSeconds(20));
    assertThat(recorded(Outcome.MISSED)).isEmpty();
    assertThat(missedHeard).isEmpty();
    assertAtMostOneRowPerFiring();
  }

  // --- answers that come late (validity counted from the send) --------------------------------

  @Test
  void aClaimWhoseAnswerComesAfterTheLeaseValidityStartsNothingAndIsReportedMissed() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(3), SECOND, null, null);
    JobDefinition tick =
        new JobDefinition(
            "tick", Schedule.every(Duration.ofMinutes(1), Duration.ZERO), policy, working(SECOND));
    SlowStore slow = new SlowStore(server.client(), time);
    slow.claimDelay = Duration.ofMillis(2700); // validity: 3 s - 0.3 s margin
    replica("a", slow, tick).start();
    time.advance(Duration.ofSeconds(10));

    assertThat(ledger).isEmpty();
    assertThat(recorded(Outcome.MISSED)).containsExactly(T0);
    assertThat(history.all().get(0).detail()).contains("after the lease's validity");
    assertThat(server.client().inspect("tick").orElseThrow().held()).isFalse();

    slow.claimDelay = Duration.ofMillis(2600); // slow, but in time: runs
    time.advance(Duration.ofMinutes(1));
    assertThat(firingsRun()).containsExactly(T0.plusSeconds(60));
  }

  @Test
  void aClaimAnsweredAfterTheFiringsGraceStartsNothingAndFreesTheLeaseForTheNextFiring() {
    // a long lease, so the answer is within its validity, but the firing's grace is short: the
    // store was cut off while the claim was on its way and answered after the grace had passed
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(30), null, null, SECOND);
    JobDefinition tick =
        new JobDefinition(
            "tick", Schedule.every(Duration.ofSeconds(10), Duration.ZERO), policy, working(SECOND));
    SlowStore slow = new SlowStore(server.client(), time);
    slow.claimDelay = Duration.ofMillis(4000);
    replica("a", slow, tick).start();
    time.advance(Duration.ofSeconds(5));
    List<Run> ranDuringTheCut = List.copyOf(ledger);
    List<Instant> missed = recorded(Outcome.MISSED);
    String detail = history.all().isEmpty() ? "" : history.all().get(0).detail();
    boolean held = server.client().inspect("tick").orElseThrow().held();
    slow.claimDelay = Duration.ZERO; // healed (before asserting, so a failure cannot wedge stop)

    assertThat(ranDuringTheCut).isEmpty();
    assertThat(missed).containsExactly(T0);
    assertThat(detail).contains("misfire grace");
    assertThat(held).isFalse();

    time.advance(Duration.ofSeconds(10)); // the next firing runs on time
    assertThat(firingsRun()).containsExactly(T0.plusSeconds(10));
    assertAtMostOneRowPerFiring();
  }

  @Test
  void aManualTriggerWhoseAnswerComesLateRunsNothingAndReleasesTheLease() {
    JobDefinition tick =
        new JobDefinition(
            "tick",
            Schedule.every(Duration.ofHours(1), Duration.ZERO),
            JobPolicy.of(Duration.ofSeconds(3), SECOND, null, null),
            working(SECOND));
    SlowStore slow = new SlowStore(server.client(), time);
    slow.acquireDelay = Duration.ofSeconds(3);
    Scheduler cli = replica("cli", slow, tick);
    List<Throwable> thrown = new CopyOnWriteArrayList<>();
    time.workers()
        .execute(
            () -> {
              try {
                cli.trigger("tick");
              } catch (RuntimeException e) {
                thrown.add(e);
              }
            });
    time.advance(Duration.ofSeconds(5));
    assertThat(thrown).singleElement().isInstanceOf(LeaseStoreException.class);
    assertThat(ledger).isEmpty();
    assertThat(server.client().inspect("tick").orElseThrow().held()).isFalse();
  }

  @Test
  void theRunnerIsToldTheLeaseValidityAtStartAndAfterEachRenewal() {
    // TTL 3 s, renew every 1 s: valid for 3 s less the 0.3 s margin, counted from each send
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(3), SECOND, null, null);
    SlowStore slow = new SlowStore(server.client(), time);
    slow.renewDelay = Duration.ofMillis(200);
    List<Long> told = new CopyOnWriteArrayList<>();
    JobRunner runner =
        ctx -> {
          told.add(ctx.leaseMillisLeft().orElseThrow());
          ctx.onLeaseRenewed(() -> told.add(ctx.leaseMillisLeft().orElseThrow()));
          return working(Duration.ofMillis(4500)).run(ctx);
        };
    replica(
            "a",
            slow,
            new JobDefinition(
                "told", Schedule.every(Duration.ofHours(1), Duration.ZERO), policy, runner))
        .start();
    time.advance(Duration.ofSeconds(10));

    // at the start, then after the renewals sent at 1, 2, 3 and 4 s, each read as it is answered
    assertThat(told).containsExactly(2700L, 2500L, 2500L, 2500L, 2500L);
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.SUCCEEDED);
  }

  @Test
  void slowRenewalsThatAnswerInTimeKeepTheLease() {
    JobPolicy policy = JobPolicy.of(Duration.ofSeconds(3), SECOND, null, null);
    SlowStore slow = new SlowStore(server.client(), time);
    slow.renewDelay = Duration.ofMillis(1200); // more than renew-every, less than half the validity
    replica(
            "a",
            slow,
            new JobDefinition(
                "long",
                Schedule.every(Duration.ofHours(1), Duration.ofSeconds(10)),
                policy,
                working(Duration.ofSeconds(30))))
        .start();
    time.advance(Duration.ofSeconds(50));
    assertThat(ledger).singleElement().extracting(Run::leaseLost).isEqualTo(false);
    assertThat(history.all())
        .extracting(ExecutionRecord::outcome)
        .containsExactly(Outcome.SUCCEEDED);
  }

  // --- batches ---------------------------------------------------------------------------------

  @Test
  void jobsDueTogetherAreClaimedInOneBatchAndAFailedEntryBacksOffAlone() {
    SlowStore store = new SlowStore(server.client(), time);
    store.failOnceInBatch = "b2";
    Schedule everyMinute = Schedule.every(Duration.ofMinutes(1), Duration.ZERO);
    List<JobDefinition> jobs = new ArrayList<>();
    for (String name : List.of("b1", "b2", "b3")) {
      jobs.add(new JobDefinition(name, everyMinute, JobPolicy.defaults(), working(SECOND)));
    }
    replica("a", store, jobs.toArray(JobDefinition[]::new)).start();
    time.advance(Duration.ofSeconds(65));

    assertThat(store.batchSizes).contains(3);
    assertThat(ledger)
        .extracting(Run::job, Run::firing)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("b1", T0),
            org.assertj.core.groups.Tuple.tuple("b2", T0),
            org.assertj.core.groups.Tuple.tuple("b3", T0),
            org.assertj.core.groups.Tuple.tuple("b1", T0.plusSeconds(60)),
            org.assertj.core.groups.Tuple.tuple("b2", T0.plusSeconds(60)),
            org.assertj.core.groups.Tuple.tuple("b3", T0.plusSeconds(60)));
    assertThat(history.all()).hasSize(6);
  }

  @Test
  void claimsThatComeDueWithinTheWindowAfterABatchGoTogetherAtItsEnd() {
    SlowStore store = new SlowStore(server.client(), time);
    List<JobDefinition> jobs = new ArrayList<>();
    int[] offsetsMillis = {0, 2, 4};
    for (int i = 0; i < offsetsMillis.length; i++) {
      Schedule s = Schedule.every(Duration.ofMinutes(1), Duration.ofMillis(offsetsMillis[i]));
      JobPolicy noCatchUp = JobPolicy.of(null, null, null, Duration.ZERO);
      jobs.add(new JobDefinition("w" + i, s, noCatchUp, working(SECOND)));
    }
    replica("a", store, jobs.toArray(JobDefinition[]::new)).start();
    time.advance(Duration.ofSeconds(5));

    // w0 alone at once (one tryClaim); w1 (2 ms later) and w2 (4 ms) wait for the 5 ms window
    // and go together in one claimAll
    assertThat(store.batchSizes).containsExactly(2);
    assertThat(ledger).extracting(Run::job).containsExactlyInAnyOrder("w0", "w1", "w2");
  }

  // --- helpers ---------------------------------------------------------------------------------

  /**
   * A node that can be frozen like SIGSTOP: its timer tasks and new worker tasks wait until thawed;
   * time (and the wall clock) goes on.
   */
  static final class Freezer implements TaskTimer {
    private final VirtualTime time;
    private final List<Runnable> held = new ArrayList<>();
    private boolean frozen;

    Freezer(VirtualTime time) {
      this.time = time;
    }

    synchronized void freeze() {
      frozen = true;
    }

    synchronized boolean frozen() {
      return frozen;
    }

    void thaw() {
      List<Runnable> release;
      synchronized (this) {
        frozen = false;
        release = new ArrayList<>(held);
        held.clear();
      }
      release.forEach(task -> time.schedule(task, Duration.ZERO));
    }

    void awaitThaw() throws InterruptedException {
      while (frozen()) {
        time.sleep(Duration.ofMillis(10));
      }
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
      return time.schedule(
          () -> {
            synchronized (this) {
              if (frozen) {
                held.add(task);
                return;
              }
            }
            task.run();
          },
          delay);
    }

    Executor workers() {
      Executor real = time.workers();
      return command ->
          real.execute(
              () -> {
                try {
                  awaitThaw();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                command.run();
              });
    }

    @Override
    public void close() {}
  }

  /** The reference store behind a slow or partly failing connection. */
  static final class SlowStore implements LeaseStore {
    private final LeaseStore store;
    private final VirtualTime time;
    volatile Duration claimDelay = Duration.ZERO;
    volatile Duration acquireDelay = Duration.ZERO;
    volatile Duration renewDelay = Duration.ZERO;
    volatile String failOnceInBatch;
    final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

    SlowStore(LeaseStore store, VirtualTime time) {
      this.store = store;
      this.time = time;
    }

    private <T> T late(T answer, Duration delay) {
      if (!delay.isZero()) {
        try {
          time.sleep(delay);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LeaseStoreException("interrupted");
        }
      }
      return answer;
    }

    @Override
    public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
      return late(store.claim(name, firing, holder, ttl), claimDelay);
    }

    @Override
    public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
      return late(store.tryClaim(name, firing, holder, ttl), claimDelay);
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
      batchSizes.add(requests.size());
      List<ClaimResult> answers = new ArrayList<>();
      for (ClaimRequest r : requests) {
        if (r.name().equals(failOnceInBatch)) {
          failOnceInBatch = null;
          answers.add(ClaimResult.failed(new LeaseStoreException("connection reset")));
        } else {
          answers.add(store.tryClaim(r.name(), r.firing(), r.holder(), r.ttl()));
        }
      }
      return late(answers, claimDelay);
    }

    @Override
    public Optional<Lease> acquire(String name, String holder, Duration ttl) {
      return late(store.acquire(name, holder, ttl), acquireDelay);
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      return late(store.renew(lease, ttl), renewDelay);
    }

    @Override
    public boolean release(Lease lease) {
      return store.release(lease);
    }

    @Override
    public Optional<LeaseState> inspect(String name) {
      return store.inspect(name);
    }

    @Override
    public List<LeaseState> list() {
      return store.list();
    }
  }
}
