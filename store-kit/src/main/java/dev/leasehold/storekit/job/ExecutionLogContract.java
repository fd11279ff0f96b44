package dev.leasehold.storekit.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.store.NamespaceCases;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
import org.junit.jupiter.api.Nested;
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
 * (times at millisecond precision), a run's output included, newest first by start time, filtered
 * by job or across all jobs, at most {@code limit} records; records written by one client are read
 * by another; concurrent writers lose nothing; {@code prune} removes, in batches no larger than
 * asked, what the retention no longer keeps (too old, or beyond the newest {@code max-per-job} of a
 * job) and nothing else. Capping at write time is store-specific and stays in the stores' own
 * tests.
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

  /**
   * Two services in two namespaces, and one in none, with the same job names on this store never
   * see each other's leases, pauses or history.
   */
  @Nested
  class Namespaces extends NamespaceCases {
    @Override
    protected StoreBackend createBackend() {
      return ExecutionLogContract.this.createBackend();
    }
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
  void aRetrysAttemptComesBackWithItsRow() {
    String job = freshJob();
    ExecutionRecord first = run(job, 0, Outcome.FAILED);
    ExecutionRecord retry =
        new ExecutionRecord(
            job,
            T0,
            "node-2",
            9,
            TriggerKind.SCHEDULED,
            T0.plusSeconds(3),
            T0.plusSeconds(4),
            Outcome.TIMED_OUT,
            null,
            "timeout 1s",
            "[stderr] slow \u001f | @ output",
            3);
    log.record(first);
    log.record(retry);
    assertThat(newLog().recent(job, 5)).containsExactly(retry, first);
    assertThat(newLog().recent(job, 5)).extracting(ExecutionRecord::attempt).containsExactly(3, 1);
  }

  @Test
  void aRunsOutputComesBackAsWritten() {
    String job = freshJob();
    String output =
        "starting backup of /srv/photos\n"
            + "[stderr] rsync: send_files failed to open \"ünïcode ☃ 𝄞\": Permission denied (13)\n"
            + "\ttabbed\r\n"
            + "[stderr] boom";
    ExecutionRecord failed =
        new ExecutionRecord(
            job,
            T0,
            "gateway-1",
            7,
            TriggerKind.SCHEDULED,
            T0.plusMillis(3),
            T0.plusSeconds(4),
            Outcome.FAILED,
            3,
            "exit code 3",
            output);
    ExecutionRecord http =
        new ExecutionRecord(
            job,
            T0.plusSeconds(60),
            "gateway-2",
            8,
            TriggerKind.MANUAL,
            T0.plusSeconds(60),
            T0.plusSeconds(61),
            Outcome.FAILED,
            503,
            "HTTP 503: try later",
            "HTTP/1.1 503\n{\"error\": \"try later\"}");
    log.record(failed);
    log.record(http);
    assertThat(newLog().recent(job, 5)).containsExactly(http, failed);
  }

  @Test
  void theLongestOutputRoundTripsAndLongerIsCutToItsTail() {
    String job = freshJob();
    String longest = "é𝄞x\n".repeat(ExecutionRecord.MAX_OUTPUT / 5 + 1) + "end";
    longest = longest.substring(longest.length() - ExecutionRecord.MAX_OUTPUT);
    ExecutionRecord full =
        new ExecutionRecord(
            job, T0, "n", 1, TriggerKind.SCHEDULED, T0, T0, Outcome.FAILED, 1, null, longest);
    log.record(full);
    assertThat(log.recent(job, 1)).containsExactly(full);
    ExecutionRecord cut =
        new ExecutionRecord(
            job,
            T0,
            "n",
            2,
            TriggerKind.SCHEDULED,
            T0.plusSeconds(1),
            T0.plusSeconds(1),
            Outcome.FAILED,
            1,
            null,
            "dropped head " + longest);
    assertThat(cut.output()).hasSize(ExecutionRecord.MAX_OUTPUT).startsWith("…").endsWith("end");
    log.record(cut);
    assertThat(log.recent(job, 1).get(0).output()).isEqualTo(cut.output());
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

  /** A run that ended just now on this machine's clock, {@code i} ms after the previous one. */
  private static ExecutionRecord endedNow(String job, int i) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS).plusMillis(i);
    return new ExecutionRecord(
        job,
        now,
        "n",
        i + 1,
        TriggerKind.SCHEDULED,
        now,
        now,
        Outcome.SUCCEEDED,
        0,
        null,
        "run " + i);
  }

  /** Prunes batch after batch until one comes back short; returns the number of calls. */
  private static int pruneAll(
      ExecutionLog log, HistoryRetention retention, Instant now, int batch) {
    int calls = 0;
    int removed;
    do {
      removed = log.prune(retention, now, batch);
      assertThat(removed).as("one batch").isBetween(0, batch);
      calls++;
    } while (removed == batch && calls < 100_000);
    return calls;
  }

  @Test
  void pruneRemovesRecordsOlderThanTheRetentionInSmallBatches() {
    String job = freshJob();
    for (int i = 0; i < 5; i++) {
      log.record(endedNow(job, i));
    }
    // two hours from now, everything written so far is older than one hour
    int calls =
        pruneAll(
            log,
            new HistoryRetention(Duration.ofHours(1), 1000),
            Instant.now().plus(Duration.ofHours(2)),
            2);
    assertThat(log.recent(job, 10)).isEmpty();
    assertThat(calls).as("five records, two per batch").isGreaterThanOrEqualTo(3);
  }

  @Test
  void pruneKeepsRecordsWithinTheRetention() {
    String job = freshJob();
    for (int i = 0; i < 3; i++) {
      log.record(endedNow(job, i));
    }
    pruneAll(log, HistoryRetention.DEFAULT, Instant.now(), 100);
    assertThat(newLog().recent(job, 10))
        .extracting(ExecutionRecord::fence)
        .containsExactly(3L, 2L, 1L);
  }

  @Test
  void pruneKeepsTheNewestMaxPerJobOfEveryJob() {
    String busy = freshJob();
    String quiet = freshJob();
    for (int i = 0; i < 12; i++) {
      log.record(endedNow(busy, i));
    }
    log.record(endedNow(quiet, 0));
    log.record(endedNow(quiet, 1));
    pruneAll(log, new HistoryRetention(Duration.ofDays(30), 5), Instant.now(), 3);
    assertThat(log.recent(busy, 100))
        .extracting(ExecutionRecord::fence)
        .containsExactly(12L, 11L, 10L, 9L, 8L);
    assertThat(log.recent(quiet, 100)).hasSize(2);
    assertThat(log.prune(new HistoryRetention(Duration.ofDays(30), 5), Instant.now(), 3))
        .as("nothing more to do")
        .isZero();
  }

  @Test
  void aLimitBelowOneIsRejected() {
    assertThatThrownBy(() -> log.recent(null, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> log.prune(HistoryRetention.DEFAULT, Instant.now(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> log.recent(freshJob(), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
