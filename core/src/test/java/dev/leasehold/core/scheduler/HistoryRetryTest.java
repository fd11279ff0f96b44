package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A history row written while the store is cut off (a run stopped as lease-lost during a partition)
 * reaches the history once the store answers again, in order, and is counted once by the listener.
 */
class HistoryRetryTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryExecutionLog rows = new InMemoryExecutionLog();
  private final AtomicBoolean storeUp = new AtomicBoolean(false);
  private final AtomicInteger heard = new AtomicInteger();
  private final ExecutionLog cutOff =
      new ExecutionLog() {
        @Override
        public void record(ExecutionRecord record) {
          if (!storeUp.get()) {
            throw new LeaseStoreException("store unreachable");
          }
          rows.record(record);
        }

        @Override
        public List<ExecutionRecord> recent(String job, int limit) {
          return rows.recent(job, limit);
        }

        @Override
        public int prune(
            dev.leasehold.core.job.HistoryRetention retention, java.time.Instant now, int limit) {
          return rows.prune(retention, now, limit);
        }
      };
  private final History history =
      new History(
          cutOff,
          new SchedulerListener() {
            @Override
            public void executionFinished(ExecutionRecord record) {
              heard.incrementAndGet();
            }
          },
          new SlotOwner(time),
          time.workers(),
          History.Written.NONE);

  @AfterEach
  void tearDown() {
    time.shutdown();
  }

  private static ExecutionRecord row(int second, Outcome outcome) {
    Instant fire = T0.plusSeconds(second);
    return new ExecutionRecord(
        "long",
        fire,
        "n1",
        second,
        TriggerKind.SCHEDULED,
        fire,
        fire.plusMillis(5),
        outcome,
        null,
        null);
  }

  @Test
  void rowsWrittenDuringACutArriveInOrderOnceTheStoreAnswers() {
    history.record(row(1, Outcome.LEASE_LOST));
    history.record(row(2, Outcome.SUCCEEDED));
    assertThat(history.pending()).isEqualTo(2);
    assertThat(heard).hasValue(2);

    time.advance(Duration.ofSeconds(30)); // still cut off: retries back off, nothing is lost
    assertThat(history.pending()).isEqualTo(2);

    storeUp.set(true);
    time.advance(History.MAX_RETRY);
    assertThat(history.pending()).isZero();
    assertThat(rows.recent("long", 10))
        .extracting(ExecutionRecord::fence)
        .containsExactlyInAnyOrder(1L, 2L);
    assertThat(heard).hasValue(2);
  }

  @Test
  void theStopFlushWritesWhatStillWaits() {
    history.record(row(1, Outcome.LEASE_LOST));
    storeUp.set(true);
    history.flushAtStop();
    assertThat(rows.recent("long", 10)).hasSize(1);
    assertThat(history.pending()).isZero();
  }
}
