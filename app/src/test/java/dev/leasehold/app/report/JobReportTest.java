package dev.leasehold.app.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A job's track record: success rate, last success and the start of a failing streak. */
class JobReportTest {
  private static final Instant T0 = Instant.parse("2026-11-30T18:00:00Z");

  /** Runs newest first, one a minute back from the first given, with these outcomes. */
  private static List<ExecutionRecord> newestFirst(Outcome... outcomes) {
    List<ExecutionRecord> runs = new ArrayList<>();
    for (int i = 0; i < outcomes.length; i++) {
      Instant fire = T0.minusSeconds(60L * i);
      runs.add(
          new ExecutionRecord(
              "job", fire, "n1", 1, TriggerKind.SCHEDULED, fire, fire, outcomes[i], 0, null));
    }
    return runs;
  }

  @Test
  void aFailingStreakStartsAtItsOldestFailureAndSkipsAreNotRuns() {
    Map<String, Object> record =
        JobReport.record(
            newestFirst(
                Outcome.FAILED,
                Outcome.SKIPPED,
                Outcome.TIMED_OUT,
                Outcome.SUCCEEDED,
                Outcome.FAILED,
                Outcome.SUCCEEDED));
    assertThat(record)
        .containsEntry("window", 6)
        .containsEntry("runs", 5)
        .containsEntry("succeeded", 2)
        .containsEntry("success_rate", 40.0)
        .containsEntry("last_success", "2026-11-30T17:57:00.000Z")
        .containsEntry("failing_since", "2026-11-30T17:58:00.000Z");
  }

  @Test
  void noStreakWhenTheLatestRunSucceeded() {
    Map<String, Object> record =
        JobReport.record(newestFirst(Outcome.SUCCEEDED, Outcome.FAILED, Outcome.MISSED));
    assertThat(record)
        .containsEntry("failing_since", null)
        .containsEntry("last_success", "2026-11-30T18:00:00.000Z")
        .containsEntry("success_rate", 50.0);
  }

  @Test
  void withoutAnyRunThereIsNoRate() {
    assertThat(JobReport.record(newestFirst(Outcome.PAUSED)))
        .containsEntry("runs", 0)
        .containsEntry("success_rate", null)
        .containsEntry("last_success", null)
        .containsEntry("failing_since", null);
    assertThat(JobReport.record(newestFirst(Outcome.FAILED, Outcome.FAILED)))
        .containsEntry("failing_since", "2026-11-30T17:59:00.000Z")
        .containsEntry("success_rate", 0.0);
  }
}
