package dev.leasehold.app.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.JobConfig;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.scheduler.Overlap;
import dev.leasehold.core.scheduler.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The firing {@code status} shows as waiting behind a run ({@code buffered}), as a table: an
 * every-10-s job with a misfire grace of 30 s; the lease's watermark is the running firing.
 * Instants are seconds after 06:00:00.
 */
class StatusBufferedTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  @ParameterizedTest(name = "{0}, held {1}, watermark {2}, now {3}: waiting {4}")
  @CsvSource({
    // overlap,  held,  watermark, now, waiting
    "BUFFER_ONE, true,  0,         12,  10",
    "REPLACE,    true,  0,         12,  10",
    "REPLACE,    true,  0,         41,  10",
    "REPLACE,    true,  0,         42,  ", // past its grace: missed
    "REPLACE,    true,  0,         9,   ", // not due yet
    "REPLACE,    false, 0,         12,  ", // no run holds the lease
    "SKIP,       true,  0,         12,  ",
    "ALLOW,      true,  0,         12,  ",
  })
  void theWaitingFiringIsTheFirstAfterTheRunningOneWhileDueAndInItsGrace(
      Overlap overlap, boolean held, long watermark, long now, Long waiting) {
    JobConfig job =
        new JobConfig(
            "backup",
            Schedule.every(Duration.ofSeconds(10), Duration.ZERO),
            null,
            null,
            null,
            Duration.ofSeconds(30),
            null,
            null,
            null,
            null,
            RetryPolicy.NONE,
            overlap);
    LeaseState state =
        new LeaseState(
            "backup", held ? "n1" : null, T0.plusSeconds(40), T0.plusSeconds(watermark), 7, held);
    assertThat(StatusReport.buffered(job, state, T0.plusSeconds(now)))
        .isEqualTo(java.util.Optional.ofNullable(waiting).map(T0::plusSeconds));
  }

  @ParameterizedTest(name = "a {0} row is not a run of the track record")
  @CsvSource({"REPLACED", "SKIPPED"})
  void replacedRunsAreLeftOutOfTheTrackRecordLikeSkips(Outcome outcome) {
    List<ExecutionRecord> rows =
        List.of(
            new ExecutionRecord(
                "backup", T0, "n1", 1, TriggerKind.SCHEDULED, T0, T0, outcome, 0, null),
            new ExecutionRecord(
                "backup",
                T0.minusSeconds(10),
                "n1",
                1,
                TriggerKind.SCHEDULED,
                T0,
                T0,
                Outcome.SUCCEEDED,
                0,
                null));
    assertThat(JobReport.record(rows))
        .containsEntry("runs", 1)
        .containsEntry("failing_since", null);
  }
}
