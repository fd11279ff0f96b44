package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SQL history's prune deletes the ids it selected a hundred at a time through one statement
 * rendered once (a shorter last chunk repeats its last id): one call with a limit above a hundred
 * removes every row it selected, the same as the kit's small batches do.
 */
class SqlHistoryPruneTest {
  private static final Instant LONG_AGO = Instant.parse("2026-01-01T00:00:00Z");
  private static TestDatabase database;

  @BeforeAll
  static void createDatabase() {
    database = TestDatabase.h2().migrated();
  }

  @AfterAll
  static void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void oneCallRemovesMoreThanAHundredRowsAndCountsThemOnce() {
    try (StoreBackend backend = database.open()) {
      ExecutionLog log = backend.executionLog();
      for (int i = 0; i < 250; i++) {
        log.record(record("old", i, LONG_AGO.plusSeconds(i)));
      }
      log.record(record("kept", 0, Instant.now()));
      HistoryRetention retention = new HistoryRetention(Duration.ofDays(1), 1000);

      assertThat(log.prune(retention, Instant.now(), 240)).isEqualTo(240);
      assertThat(log.prune(retention, Instant.now(), 240)).isEqualTo(10);
      assertThat(log.recent("old", 500)).isEmpty();
      assertThat(log.recent("kept", 10)).hasSize(1);
    }
  }

  @Test
  void oneCallCutsACrowdedJobBelowItsNewestMaxPerJob() {
    try (StoreBackend backend = database.open()) {
      ExecutionLog log = backend.executionLog();
      Instant now = Instant.now();
      for (int i = 0; i < 230; i++) {
        log.record(record("crowded", i, now.minusSeconds(1000 - i)));
      }
      HistoryRetention retention = new HistoryRetention(Duration.ofDays(1), 7);

      assertThat(log.prune(retention, now, 500)).isEqualTo(223);
      assertThat(log.recent("crowded", 500))
          .extracting(ExecutionRecord::fence)
          .containsExactly(230L, 229L, 228L, 227L, 226L, 225L, 224L);
    }
  }

  private static ExecutionRecord record(String job, int i, Instant at) {
    return new ExecutionRecord(
        job, at, "n", i + 1, TriggerKind.SCHEDULED, at, at, Outcome.SUCCEEDED, 0, null);
  }
}
