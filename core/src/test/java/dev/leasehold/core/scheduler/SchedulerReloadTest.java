package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reload ({@link Scheduler#replaceJobs}) in virtual time, on three replicas sharing one store:
 * added jobs start at their next firing and catch nothing up, removed jobs take no firing more
 * while a run in flight finishes and releases its lease, and a changed schedule, body or policy
 * applies from the next firing.
 */
class SchedulerReloadTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> replicas = new ArrayList<>();

  /** One execution of a body: which body (its tag), job, firing, when it ended. */
  record Run(String tag, String job, Instant firing, Instant ended, boolean leaseLost) {}

  private final List<Run> ledger = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    replicas.forEach(s -> s.stop(Duration.ZERO));
    time.shutdown();
  }

  private JobRunner body(String tag, Duration work) {
    return ctx -> {
      try {
        time.sleep(work);
        return JobResult.succeeded();
      } finally {
        ledger.add(new Run(tag, ctx.job(), ctx.firing(), time.now(), ctx.leaseLost()));
      }
    };
  }

  private static JobDefinition every(Duration interval, String name, JobRunner runner) {
    return new JobDefinition(
        name, Schedule.every(interval, Duration.ZERO), JobPolicy.defaults(), runner);
  }

  private void startReplicas(JobDefinition... jobs) {
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
              .jobs(List.of(jobs))
              .build();
      replicas.add(s);
      s.start();
    }
  }

  /** Every replica reloads the same list; returns what the first one reported. */
  private JobChanges reloadAll(Set<String> changed, JobDefinition... jobs) {
    JobChanges first = null;
    for (Scheduler s : replicas) {
      JobChanges done = s.replaceJobs(List.of(jobs), changed);
      first = first == null ? done : first;
      assertThat(done).isEqualTo(first);
    }
    return first;
  }

  private List<Instant> firings(String job) {
    return ledger.stream().filter(r -> r.job().equals(job)).map(Run::firing).sorted().toList();
  }

  private List<Instant> firingsOf(String job, String tag) {
    return ledger.stream()
        .filter(r -> r.job().equals(job) && r.tag().equals(tag))
        .map(Run::firing)
        .sorted()
        .toList();
  }

  private static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  @Test
  void anAddedJobStartsAtItsNextFiringAndCatchesNothingUp() {
    JobDefinition kept = every(TEN_SECONDS, "kept", body("kept", Duration.ofMillis(100)));
    startReplicas(kept);
    time.advance(Duration.ofSeconds(15)); // T0 + 10 s is 5 s old: well within the misfire grace

    JobChanges done =
        reloadAll(
            Set.of(), kept, every(TEN_SECONDS, "added", body("added", Duration.ofMillis(100))));
    time.advance(Duration.ofSeconds(17));

    assertThat(done).isEqualTo(new JobChanges(List.of("added"), List.of(), List.of()));
    assertThat(firings("added"))
        .as("T0 and T0 + 10 s came due before the reload: neither is caught up")
        .containsExactly(at(20), at(30));
    assertThat(firings("kept")).containsExactly(at(0), at(10), at(20), at(30));
  }

  @Test
  void aRemovedJobTakesNoFiringMoreWhileItsRunFinishesAndReleasesTheLease() {
    JobDefinition slow = every(TEN_SECONDS, "slow", body("slow", Duration.ofSeconds(5)));
    JobDefinition kept = every(TEN_SECONDS, "kept", body("kept", Duration.ofMillis(100)));
    startReplicas(slow, kept);
    time.advance(Duration.ofSeconds(12)); // the run of T0 + 10 s works until T0 + 15 s

    JobChanges done = reloadAll(Set.of(), kept);
    time.advance(Duration.ofSeconds(40));

    assertThat(done).isEqualTo(new JobChanges(List.of(), List.of("slow"), List.of()));
    assertThat(ledger.stream().filter(r -> r.job().equals("slow")).toList())
        .as("the run in flight finished its work, lease held; nothing fired after the reload")
        .extracting(Run::firing, Run::ended, Run::leaseLost)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(at(0), at(5), false),
            org.assertj.core.groups.Tuple.tuple(at(10), at(15), false));
    assertThat(server.client().inspect("slow").flatMap(LeaseState::currentHolder))
        .as("its lease was released")
        .isEmpty();
    assertThat(firings("kept")).containsExactly(at(0), at(10), at(20), at(30), at(40), at(50));
    assertThat(replicas.get(0).jobs()).extracting(JobDefinition::name).containsExactly("kept");
  }

  @Test
  void aChangedScheduleAppliesFromItsNextFiring() {
    startReplicas(every(TEN_SECONDS, "tick", body("old", Duration.ofMillis(100))));
    time.advance(Duration.ofSeconds(15));

    JobChanges done =
        reloadAll(
            Set.of(), every(Duration.ofSeconds(4), "tick", body("old", Duration.ofMillis(100))));
    time.advance(Duration.ofSeconds(14));

    assertThat(done).isEqualTo(new JobChanges(List.of(), List.of(), List.of("tick")));
    assertThat(firings("tick"))
        .as("every 10 s until the reload at T0 + 15 s, every 4 s from the next firing on")
        .containsExactly(at(0), at(10), at(16), at(20), at(24), at(28));
  }

  @Test
  void aChangedBodyRunsFromTheNextFiringWhileTheRunInFlightKeepsTheOldOne() {
    startReplicas(every(TEN_SECONDS, "job", body("old", Duration.ofSeconds(4))));
    time.advance(Duration.ofSeconds(12)); // the old body runs T0 + 10 s until T0 + 14 s

    JobChanges done =
        reloadAll(Set.of("job"), every(TEN_SECONDS, "job", body("new", Duration.ofSeconds(4))));
    time.advance(Duration.ofSeconds(24)); // the run of T0 + 30 s ends at T0 + 34 s

    assertThat(done.changed()).containsExactly("job");
    assertThat(firingsOf("job", "old")).containsExactly(at(0), at(10));
    assertThat(firingsOf("job", "new")).containsExactly(at(20), at(30));
  }

  @Test
  void aChangedPolicyCountsAsAChangeAndAnUnchangedJobIsLeftAlone() {
    JobDefinition job = every(TEN_SECONDS, "job", body("a", Duration.ofMillis(100)));
    startReplicas(job);
    time.advance(Duration.ofSeconds(5));

    JobChanges same = reloadAll(Set.of(), job);
    JobDefinition longer =
        new JobDefinition(
            "job",
            job.schedule(),
            JobPolicy.of(Duration.ofMinutes(2), null, Duration.ofSeconds(30), null),
            job.runner());
    JobChanges policy = reloadAll(Set.of(), longer);
    time.advance(Duration.ofSeconds(26));

    assertThat(same.isEmpty()).isTrue();
    assertThat(policy.changed()).containsExactly("job");
    assertThat(replicas.get(0).jobs()).containsExactly(longer);
    assertThat(firings("job")).containsExactly(at(0), at(10), at(20), at(30));
  }

  @Test
  void aListWithADuplicateNameChangesNothing() {
    JobDefinition job = every(TEN_SECONDS, "job", body("a", Duration.ofMillis(100)));
    startReplicas(job);
    JobDefinition other = every(TEN_SECONDS, "other", body("b", Duration.ofMillis(100)));

    assertThatThrownBy(() -> replicas.get(0).replaceJobs(List.of(other, other), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("other");
    time.advance(Duration.ofSeconds(25));

    assertThat(replicas.get(0).jobs()).containsExactly(job);
    assertThat(firings("job")).containsExactly(at(0), at(10), at(20));
    assertThat(firings("other")).isEmpty();
  }

  @Test
  void aStoppedSchedulerRefusesAReload() {
    startReplicas(every(TEN_SECONDS, "job", body("a", Duration.ofMillis(100))));
    Scheduler first = replicas.get(0);
    first.stop(Duration.ZERO);

    assertThatThrownBy(() -> first.replaceJobs(List.of(), Set.of()))
        .isInstanceOf(IllegalStateException.class);
  }
}
