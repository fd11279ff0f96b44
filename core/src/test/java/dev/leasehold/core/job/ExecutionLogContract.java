package dev.leasehold.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.store.StoreBackend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The specification of an {@link ExecutionLog}, the sibling of the lease kit: every store's history
 * passes it against a real server. A store's test class says only how to open its backend:
 *
 * <pre>{@code
 * class PostgresExecutionLogContractTest extends ExecutionLogContract {
 *   @Override
 *   protected StoreBackend createBackend() {
 *     return ...; // a new, independent client on the same database each call
 *   }
 * }
 * }</pre>
 *
 * <p>Each test writes under fresh job names, so stores need no cleaning; the kit closes every
 * backend it opened after each test. What the history promises: every field comes back as written
 * (times at millisecond precision), newest first by start time, filtered by job or across all jobs,
 * at most {@code limit} records; records written by one client are read by another; concurrent
 * writers lose nothing. Retention and capping are store-specific and stay in the stores' own tests.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ExecutionLogContract {
  private static final Instant T0 = Instant.parse("2026-11-30T06:30:00.123Z");

  private final List<StoreBackend> opened = new ArrayList<>();
  protected ExecutionLog log;

  /** A new, independent client on the same store. Closed by the kit after each test. */
  protected abstract StoreBackend createBackend();

  protected final ExecutionLog newLog() {
    StoreBackend backend = createBackend();
    opened.add(backend);
    return backend.executionLog();
  }

  @BeforeEach
  final void openLog() {
    log = newLog();
  }

  @AfterEach
  final void closeBackends() {
    opened.forEach(StoreBackend::close);
    opened.clear();
  }

  /** A job name no other test has used. */
  protected static String freshJob() {
    return "history-" + UUID.randomUUID().toString().substring(0, 13);
  }

  private static ExecutionRecord run(String job, int second, Outcome outcome) {
    Instant fire = T0.plusSeconds(second);
    return new ExecutionRecord(
        job,
        fire,
        "node-" + second,
        second + 1,
        TriggerKind.SCHEDULED,
        fire.plusMillis(7),
        fire.plusMillis(1500),
        outcome,
        outcome == Outcome.SUCCEEDED ? 0 : 1,
        outcome == Outcome.SUCCEEDED ? null : "exit 1");
  }

  @Test
  void aRecordComesBackWithEveryField() {
    String job = freshJob();
    ExecutionRecord manual =
        new ExecutionRecord(
            job,
            T0,
            "gateway-1",
            42,
            TriggerKind.MANUAL,
            T0.plusMillis(5),
            T0.plusSeconds(90),
            Outcome.LEASE_LOST,
            null,
            "lease lost after 61s … ünïcode");
    log.record(manual);
    assertThat(log.recent(job, 5)).containsExactly(manual);
  }

  @Test
  void everyOutcomeAndTriggerRoundTrips() {
    String job = freshJob();
    List<ExecutionRecord> written = new ArrayList<>();
    int i = 0;
    for (Outcome outcome : Outcome.values()) {
      for (TriggerKind trigger : TriggerKind.values()) {
        Instant fire = T0.plusSeconds(i);
        ExecutionRecord r =
            new ExecutionRecord(
                job, fire, "n", i, trigger, fire, fire, outcome, i % 2 == 0 ? null : i, null);
        log.record(r);
        written.add(0, r);
        i++;
      }
    }
    assertThat(log.recent(job, 100)).containsExactlyElementsOf(written);
  }

  @Test
  void extremeValuesRoundTrip() {
    String job = freshJob();
    Instant far = Instant.parse("2100-01-01T00:00:00.999Z");
    ExecutionRecord big =
        new ExecutionRecord(
            job,
            far,
            "n".repeat(200),
            9_007_199_254_740_993L,
            TriggerKind.SCHEDULED,
            far,
            far.plusMillis(1),
            Outcome.FAILED,
            -1,
            "x".repeat(ExecutionRecord.MAX_DETAIL));
    ExecutionRecord skipped =
        new ExecutionRecord(
            job,
            Instant.parse("1970-01-01T00:00:00Z"),
            "n",
            0,
            TriggerKind.SCHEDULED,
            Instant.parse("1970-01-01T00:00:00.001Z"),
            Instant.parse("1970-01-01T00:00:00.001Z"),
            Outcome.SKIPPED,
            null,
            "");
    log.record(skipped);
    log.record(big);
    List<ExecutionRecord> back = log.recent(job, 10);
    assertThat(back).hasSize(2);
    assertThat(back.get(0)).isEqualTo(big);
    assertThat(back.get(1)).usingRecursiveComparison().ignoringFields("detail").isEqualTo(skipped);
    assertThat(back.get(1).detail()).as("an empty detail").isIn("", null);
  }

  @Test
  void recentIsNewestFirstFilteredByJobAndLimited() {
    String digest = freshJob();
    String backup = freshJob();
    for (int second = 0; second < 5; second++) {
      log.record(run(digest, second, second == 3 ? Outcome.FAILED : Outcome.SUCCEEDED));
      log.record(run(backup, second, Outcome.SUCCEEDED));
    }
    List<ExecutionRecord> digests = log.recent(digest, 3);
    assertThat(digests).extracting(ExecutionRecord::job).containsOnly(digest);
    assertThat(digests)
        .extracting(ExecutionRecord::fireTime)
        .containsExactly(T0.plusSeconds(4), T0.plusSeconds(3), T0.plusSeconds(2));
    assertThat(digests.get(1).outcome()).isEqualTo(Outcome.FAILED);
    assertThat(log.recent(backup, 1))
        .extracting(ExecutionRecord::fireTime)
        .containsExactly(T0.plusSeconds(4));
  }

  @Test
  void recentOfAllJobsMergesThemNewestFirst() {
    String a = freshJob();
    String b = freshJob();
    log.record(run(a, 1, Outcome.SUCCEEDED));
    log.record(run(b, 2, Outcome.TIMED_OUT));
    log.record(run(a, 3, Outcome.FAILED));
    List<ExecutionRecord> mine =
        log.recent(null, 1000).stream()
            .filter(r -> r.job().equals(a) || r.job().equals(b))
            .toList();
    assertThat(mine).extracting(ExecutionRecord::fence).containsExactly(4L, 3L, 2L);
    assertThat(log.recent(null, 2)).hasSize(2);
  }

  @Test
  void aJobThatNeverRanHasNoRecords() {
    assertThat(log.recent(freshJob(), 10)).isEmpty();
  }

  @Test
  void anotherClientReadsWhatOneWrote() {
    String job = freshJob();
    ExecutionRecord r = run(job, 1, Outcome.SUCCEEDED);
    log.record(r);
    assertThat(newLog().recent(job, 10)).containsExactly(r);
  }

  @Test
  void concurrentWritersLoseNothing() throws Exception {
    String job = freshJob();
    int writers = 4;
    int each = 25;
    List<ExecutionLog> logs = List.of(log, newLog(), newLog(), newLog());
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        ExecutionLog writer = logs.get(w);
        int first = w * each;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = first; i < first + each; i++) {
                    writer.record(run(job, i, Outcome.SUCCEEDED));
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(log.recent(job, 1000))
        .extracting(ExecutionRecord::fence)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.LongStream.rangeClosed(1, writers * each).boxed().toList());
  }

  @Test
  void aLimitBelowOneIsRejected() {
    assertThatThrownBy(() -> log.recent(null, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> log.recent(freshJob(), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
