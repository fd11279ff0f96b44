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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The overlap policies, in virtual time with three replicas. {@code buffer-one}: a firing due while
 * a run goes waits and starts as soon as that run ends (within a second), on any replica; a firing
 * due while one already waits is recorded once as skipped; runs never overlap and each firing runs
 * once. {@code replace}: the holder stops its run when the next firing comes due, and that firing
 * starts once the run ended (after a dead holder's lease expired). {@code allow}: runs of
 * consecutive firings overlap, each firing once, each run with its own fence; without a free run
 * seat a run goes under the job's lease.
 */
class SchedulerOverlapTest {
  private static final Instant T0 = Instant.parse("2026-12-01T06:00:00Z");
  private static final Duration PERIOD = Duration.ofSeconds(10);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();

  /** One run: its firing and the virtual instants it started and ended. */
  record Span(Instant firing, Instant start, Instant end) {}

  private final List<Span> spans = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  /** Runs of the allow test: their firing and fence, as the body saw them. */
  private final Map<Instant, Long> fences = new java.util.concurrent.ConcurrentHashMap<>();

  private void start(JobPolicy policy, Duration firstRun) {
    start(policy, firing -> firing.equals(T0) ? firstRun : Duration.ofSeconds(1));
  }

  private void start(JobPolicy policy, java.util.function.Function<Instant, Duration> length) {
    JobRunner body =
        ctx -> {
          Instant start = time.now();
          fences.put(ctx.firing(), ctx.fence());
          try {
            time.sleep(length.apply(ctx.firing()));
          } finally {
            spans.add(new Span(ctx.firing(), start, time.now()));
          }
          return JobResult.succeeded();
        };
    JobDefinition job =
        new JobDefinition("backup", Schedule.every(PERIOD, Duration.ZERO), policy, body);
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

  private Map<Instant, Outcome> outcomes() {
    Map<Instant, List<ExecutionRecord>> byFiring =
        history.all().stream().collect(Collectors.groupingBy(ExecutionRecord::fireTime));
    byFiring.forEach(
        (firing, rows) -> assertThat(rows).as("one row for firing " + firing).hasSize(1));
    return byFiring.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get(0).outcome()));
  }

  private void assertNoOverlap() {
    List<Span> byStart = spans.stream().sorted(Comparator.comparing(Span::start)).toList();
    for (int i = 1; i < byStart.size(); i++) {
      assertThat(byStart.get(i).start())
          .as("%s starts after %s ended", byStart.get(i), byStart.get(i - 1))
          .isAfterOrEqualTo(byStart.get(i - 1).end());
    }
  }

  @Test
  void theFiringDueDuringARunWaitsAndStartsAsItEndsAndALaterOneIsSkipped() {
    start(JobPolicy.defaults().withOverlap(Overlap.BUFFER_ONE), Duration.ofSeconds(25));

    time.advance(Duration.ofSeconds(65));

    assertNoOverlap();
    Map<Instant, Span> runs =
        spans.stream().collect(Collectors.toMap(Span::firing, s -> s, (a, b) -> a));
    assertThat(spans).as("each firing ran at most once").hasSize(runs.size());
    Instant f10 = T0.plus(PERIOD);
    Instant f20 = f10.plus(PERIOD);
    assertThat(runs).containsKeys(T0, f10).doesNotContainKey(f20);
    assertThat(Duration.between(runs.get(T0).end(), runs.get(f10).start()))
        .as("the buffered firing starts within a second of the run's end")
        .isLessThan(Duration.ofSeconds(1));
    for (int i = 3; i <= 6; i++) {
      assertThat(runs).containsKey(T0.plus(PERIOD.multipliedBy(i)));
    }
    Map<Instant, Outcome> outcomes = outcomes();
    assertThat(outcomes.get(f20))
        .as("the firing due while another waited: recorded once, as skipped")
        .isEqualTo(Outcome.SKIPPED);
    assertThat(outcomes.get(f10)).isEqualTo(Outcome.SUCCEEDED);
  }

  @Test
  void withReplaceTheNextFiringStopsTheRunAndStartsOnceItEnded() {
    start(JobPolicy.defaults().withOverlap(Overlap.REPLACE), f -> Duration.ofSeconds(25));

    time.advance(Duration.ofSeconds(65));

    assertNoOverlap();
    Map<Instant, Span> runs =
        spans.stream().collect(Collectors.toMap(Span::firing, s -> s, (a, b) -> a));
    assertThat(spans).as("each firing ran at most once").hasSize(runs.size());
    Map<Instant, Outcome> outcomes = outcomes();
    for (int i = 0; i < 5; i++) {
      Instant firing = T0.plus(PERIOD.multipliedBy(i));
      Instant next = firing.plus(PERIOD);
      assertThat(runs).as("firing %s ran", firing).containsKey(firing);
      assertThat(runs.get(firing).end())
          .as("the run of %s was stopped when %s came due", firing, next)
          .isBetween(next, next.plusSeconds(1));
      assertThat(outcomes.get(firing)).as("the row of %s", firing).isEqualTo(Outcome.REPLACED);
      assertThat(Duration.between(runs.get(firing).end(), runs.get(next).start()))
          .as("%s starts within a second of the end of the run it replaced", next)
          .isLessThan(Duration.ofSeconds(1));
    }
  }

  @Test
  void withAllowRunsOfConsecutiveFiringsOverlapAndEachFiringRunsOnce() {
    start(JobPolicy.defaults().withOverlap(Overlap.ALLOW), f -> Duration.ofSeconds(25));

    time.advance(Duration.ofSeconds(65));

    Map<Instant, Span> runs =
        spans.stream().collect(Collectors.toMap(Span::firing, s -> s, (a, b) -> a));
    assertThat(spans).as("each firing ran at most once").hasSize(runs.size());
    for (int i = 0; i <= 3; i++) {
      Instant firing = T0.plus(PERIOD.multipliedBy(i));
      assertThat(runs).as("firing %s ran", firing).containsKey(firing);
      assertThat(runs.get(firing).start()).isBefore(firing.plusSeconds(1));
      assertThat(runs.get(firing).end()).isEqualTo(runs.get(firing).start().plusSeconds(25));
    }
    assertThat(runs.get(T0.plus(PERIOD)).start())
        .as("the second firing's run starts while the first one's goes on")
        .isBefore(runs.get(T0).end());
    assertThat(outcomes().values()).containsOnly(Outcome.SUCCEEDED);
    List<Long> byFiring =
        fences.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(Map.Entry::getValue)
            .toList();
    assertThat(byFiring).as("each run its own fence, rising with the firings").isSorted();
    assertThat(byFiring).doesNotHaveDuplicates();
  }

  @Test
  void withReplaceAHolderThatDiedIsWaitedForUntilItsLeaseExpires() {
    JobPolicy policy =
        JobPolicy.of(Duration.ofSeconds(15), null, null, null).withOverlap(Overlap.REPLACE);
    // a replica that claimed the first firing and died: never renewed, never released
    server.client().claim("backup", T0, "dead-node", policy.ttl()).orElseThrow();
    start(policy, f -> Duration.ofSeconds(1));

    time.advance(Duration.ofSeconds(25));

    Map<Instant, Span> runs =
        spans.stream().collect(Collectors.toMap(Span::firing, s -> s, (a, b) -> a));
    assertThat(spans).as("each firing ran at most once").hasSize(runs.size());
    Instant f10 = T0.plus(PERIOD);
    assertThat(runs).as("the dead holder's firing is nobody else's").doesNotContainKey(T0);
    assertThat(runs.get(f10).start())
        .as("the next firing waited for the dead holder's lease to expire, then ran")
        .isBetween(T0.plusSeconds(15), T0.plusSeconds(16));
    assertThat(runs).containsKey(f10.plus(PERIOD));
  }

  @Test
  void withAllowAndEverySeatTakenTheRunsGoUnderTheJobsLeaseWithoutOverlap() {
    var other = server.client();
    for (int i = 0; i < dev.leasehold.core.lease.RunSeats.MAX; i++) {
      other
          .acquire(
              dev.leasehold.core.lease.RunSeats.seatName("backup", i),
              "elsewhere",
              Duration.ofHours(1))
          .orElseThrow();
    }
    start(JobPolicy.defaults().withOverlap(Overlap.ALLOW), f -> Duration.ofSeconds(15));

    time.advance(Duration.ofSeconds(65));

    assertNoOverlap();
    Map<Instant, Span> runs =
        spans.stream().collect(Collectors.toMap(Span::firing, s -> s, (a, b) -> a));
    assertThat(spans).as("each firing ran at most once").hasSize(runs.size());
    assertThat(runs).containsKeys(T0, T0.plus(PERIOD), T0.plus(PERIOD.multipliedBy(2)));
    assertThat(outcomes().values()).containsOnly(Outcome.SUCCEEDED);
  }

  @Test
  void withSkipTheFiringDueDuringARunDoesNotRun() {
    start(JobPolicy.defaults(), Duration.ofSeconds(25));

    time.advance(Duration.ofSeconds(65));

    assertNoOverlap();
    Instant f10 = T0.plus(PERIOD);
    assertThat(spans).extracting(Span::firing).doesNotContain(f10, f10.plus(PERIOD));
    assertThat(outcomes().get(f10)).isIn(Outcome.SKIPPED, Outcome.MISSED);
  }
}
