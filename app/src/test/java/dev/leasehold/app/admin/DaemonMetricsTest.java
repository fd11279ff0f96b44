package dev.leasehold.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.store.StoreBackend;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Every series a dashboard or alert relies on exists from the first scrape, at zero. */
class DaemonMetricsTest {
  private static final StoreBackend NO_STORE = null;

  private static JobConfig job(String name, Schedule schedule) {
    return new JobConfig(
        name,
        schedule,
        Duration.ofSeconds(30),
        null,
        null,
        null,
        new JobAction.JavaClass("example.Job"));
  }

  private final StoreHealth health = new StoreHealth(NO_STORE, System::nanoTime);
  private final DaemonMetrics metrics =
      new DaemonMetrics(
          health,
          List.of(
              job("digest", Schedule.cron("30 6 * * *", ZoneOffset.UTC)),
              job("tick", Schedule.every(Duration.ofSeconds(10), Duration.ZERO))),
          Clock.systemUTC());

  @Test
  void everySeriesOfEveryJobIsThereAtZeroBeforeAnythingHappened() {
    health.answered();
    String text = metrics.scrape();
    for (String job : List.of("digest", "tick")) {
      for (Outcome outcome : Outcome.values()) {
        assertThat(text)
            .contains(
                "leasehold_executions_total{job=\""
                    + job
                    + "\",outcome=\""
                    + outcome.label()
                    + "\"} 0.0");
      }
      for (String counter :
          List.of(
              "leasehold_claims_won_total",
              "leasehold_claim_refusals_total",
              "leasehold_store_errors_total",
              "leasehold_lease_losses_total",
              "leasehold_retries_total",
              "leasehold_missed_firings_total")) {
        assertThat(text).contains(counter + "{job=\"" + job + "\"} 0.0");
      }
      assertThat(text)
          .contains("leasehold_fire_lag_seconds_bucket{job=\"" + job + "\",le=\"0.25\"} 0")
          .contains("leasehold_execution_duration_seconds_count{job=\"" + job + "\"} 0")
          .contains("leasehold_last_claim_timestamp_seconds{job=\"" + job + "\"} 0.0");
    }
    assertThat(text)
        .contains("leasehold_job_interval_seconds{job=\"digest\"} 86400.0")
        .contains("leasehold_job_interval_seconds{job=\"tick\"} 10.0")
        .contains("leasehold_running_jobs 0.0")
        .contains("leasehold_store_up 1.0")
        .contains("leasehold_last_success_timestamp_seconds{job=\"tick\"} 0.0")
        .containsPattern("leasehold_build_info\\{java=\"[^\"]+\",version=\"[^\"]+\"} 1(\\.0)?\n");
  }

  @Test
  void anAsynchronousBodyCountsAsRunningUntilItsFutureCompletes() throws Exception {
    CompletableFuture<JobResult> inner = new CompletableFuture<>();
    JobRunner counted = metrics.instrument((AsyncJobRunner) context -> inner);
    assertThat(counted).isInstanceOf(AsyncJobRunner.class);

    CompletableFuture<JobResult> body =
        ((AsyncJobRunner) counted)
            .start(
                new JobContext(
                    "tick",
                    Instant.parse("2026-11-30T06:30:00Z"),
                    1,
                    "node-a",
                    1,
                    TriggerKind.SCHEDULED,
                    null));
    assertThat(metrics.runningJobs()).isEqualTo(1);
    inner.complete(JobResult.succeeded());

    assertThat(body.get().outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(metrics.runningJobs()).isZero();
  }

  @Test
  void theLastSuccessIsTheNewestSucceededRunsEnd() {
    Instant fire = Instant.parse("2026-11-30T06:30:00Z");
    for (int i = 0; i < 3; i++) {
      Instant at = fire.plusSeconds(60L * i);
      metrics.executionFinished(
          new ExecutionRecord(
              "digest",
              at,
              "n1",
              i + 1,
              i == 0 ? TriggerKind.MANUAL : TriggerKind.SCHEDULED,
              at,
              at.plusMillis(1500),
              i == 2 ? Outcome.FAILED : Outcome.SUCCEEDED,
              i == 2 ? 1 : 0,
              null));
    }
    assertThat(metrics.scrape())
        .contains(
            "leasehold_last_success_timestamp_seconds{job=\"digest\"} "
                + fire.plusSeconds(60).plusMillis(1500).toEpochMilli() / 1000.0);
  }

  @Test
  void aRetryCountsOnceOnTheNodeThatRanIt() {
    Instant fire = Instant.parse("2026-11-30T06:30:00Z");
    for (int attempt = 1; attempt <= 3; attempt++) {
      metrics.executionFinished(
          new ExecutionRecord(
              "tick",
              fire,
              "n1",
              attempt,
              TriggerKind.SCHEDULED,
              fire.plusSeconds(attempt),
              fire.plusSeconds(attempt).plusMillis(10),
              Outcome.FAILED,
              1,
              null,
              null,
              attempt),
          attempt < 3);
    }
    assertThat(metrics.scrape())
        .contains("leasehold_retries_total{job=\"tick\"} 2.0")
        .contains("leasehold_retries_total{job=\"digest\"} 0.0")
        .contains("leasehold_executions_total{job=\"tick\",outcome=\"failed\"} 3.0");
  }

  @Test
  void aJobsIntervalIsReadOnTheInjectedClock() {
    // on 2026-03-27 the next two 06:00 Berlin firings straddle the switch to summer time: 23 h
    Clock beforeTheSwitch = Clock.fixed(Instant.parse("2026-03-27T12:00:00Z"), ZoneOffset.UTC);
    DaemonMetrics springForward =
        new DaemonMetrics(
            health,
            List.of(job("digest", Schedule.cron("0 6 * * *", ZoneId.of("Europe/Berlin")))),
            beforeTheSwitch);
    assertThat(springForward.scrape())
        .contains("leasehold_job_interval_seconds{job=\"digest\"} 82800.0");
  }

  @Test
  void aScheduledRunCountsItsClaimLagDurationAndOutcome() {
    Instant fire = Instant.parse("2026-11-30T06:30:00Z");
    metrics.executionFinished(
        new ExecutionRecord(
            "digest",
            fire,
            "n1",
            3,
            TriggerKind.SCHEDULED,
            fire.plusMillis(120),
            fire.plusSeconds(5),
            Outcome.LEASE_LOST,
            null,
            "lease lost"));
    metrics.executionFinished(
        new ExecutionRecord(
            "digest",
            fire.plusSeconds(60),
            "n1",
            0,
            TriggerKind.SCHEDULED,
            fire,
            fire,
            Outcome.MISSED,
            null,
            null));
    String text = metrics.scrape();
    assertThat(text)
        .contains("leasehold_executions_total{job=\"digest\",outcome=\"lease-lost\"} 1.0")
        .contains("leasehold_lease_losses_total{job=\"digest\"} 1.0")
        .contains("leasehold_claims_won_total{job=\"digest\"} 1.0")
        .contains("leasehold_missed_firings_total{job=\"digest\"} 1.0")
        .contains("leasehold_fire_lag_seconds_bucket{job=\"digest\",le=\"0.1\"} 0")
        .contains("leasehold_fire_lag_seconds_bucket{job=\"digest\",le=\"0.25\"} 1")
        .contains(
            "leasehold_last_claim_timestamp_seconds{job=\"digest\"} "
                + (double) fire.getEpochSecond());
  }
}
