package dev.leasehold.app.admin;

import dev.leasehold.app.config.BuildInfo;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.scheduler.SchedulerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The daemon's metrics, fed by the scheduler's listener and by a wrapper around every job runner.
 * Every series exists from the first scrape, at zero, for every configured job and outcome, so a
 * dashboard or an alert never has to tell "absent" from "zero" (Prometheus names):
 *
 * <ul>
 *   <li>{@code leasehold_executions_total{job,outcome}}: executions on this node by outcome;
 *   <li>{@code leasehold_claims_won_total{job}}: scheduled firings this node claimed and ran;
 *   <li>{@code leasehold_claim_refusals_total{job}}: firings another node held or had run;
 *   <li>{@code leasehold_store_errors_total{job}}: store calls that failed (nothing ran for them);
 *   <li>{@code leasehold_lease_losses_total{job}}: runs stopped because the lease was lost;
 *   <li>{@code leasehold_missed_firings_total{job}}: firings no replica ran within their grace;
 *   <li>{@code leasehold_retries_total{job}}: retries (attempt 2 and later of a failed or timed-out
 *       firing, the job's {@code retry}) this node ran, so once per cluster;
 *   <li>{@code leasehold_paused_firings_total{job}}: firings that fell while the job was paused,
 *       counted on the node that recorded each (once per cluster);
 *   <li>{@code leasehold_execution_duration_seconds{job}} and {@code
 *       leasehold_fire_lag_seconds{job}} (scheduled instant → start): histograms;
 *   <li>{@code leasehold_last_claim_timestamp_seconds{job}}: when this node last started a
 *       scheduled run of the job (0 = never), and {@code leasehold_job_interval_seconds{job}}: the
 *       gap between its next two firings, for "no run in 2 × the interval" alerts;
 *   <li>{@code leasehold_last_success_timestamp_seconds{job}}: when a run of the job last succeeded
 *       on this node (epoch seconds, 0 = not since this node started); the newest across replicas
 *       ({@code max by (job)}) is the cluster's last success;
 *   <li>{@code leasehold_running_jobs}, {@code leasehold_store_up} (1 when the store answers);
 *   <li>{@code leasehold_config_reloads_total{result}}: reloads of the file (SIGHUP, {@code POST
 *       /reload}) that were {@code applied} or {@code failed} (refused: nothing changed);
 *   <li>{@code leasehold_build_info{version,java}}: always 1, the build's version in its labels.
 * </ul>
 *
 * Created only when the admin endpoint is on, which is the only place they are read.
 */
public final class DaemonMetrics implements SchedulerListener {
  private static final Duration[] LAG_BUCKETS = {
    Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
    Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
    Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)
  };
  private static final Duration[] DURATION_BUCKETS = {
    Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(60),
    Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofHours(1), Duration.ofHours(4)
  };

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicInteger running = new AtomicInteger();
  private final StoreHealth health;
  private final Map<String, JobMeters> jobs = new ConcurrentHashMap<>();
  private final Counter reloadsApplied = reloads("applied");
  private final Counter reloadsFailed = reloads("failed");
  private final Clock clock;

  /** The meters of one job, registered up front. */
  private final class JobMeters {
    final Map<Outcome, Counter> executions = new EnumMap<>(Outcome.class);
    final Counter claimsWon;
    final Counter refusals;
    final Counter storeErrors;
    final Counter leaseLosses;
    final Counter missed;
    final Counter paused;
    final Counter retries;
    final Timer duration;
    final Timer lag;
    final AtomicLong lastClaim = new AtomicLong();
    final AtomicLong lastSuccessMillis = new AtomicLong();
    final AtomicLong intervalMillis = new AtomicLong();

    JobMeters(String job, Duration interval) {
      intervalMillis.set(interval.toMillis());
      for (Outcome outcome : Outcome.values()) {
        executions.put(
            outcome,
            Counter.builder("leasehold.executions")
                .description("Executions on this node by job and outcome")
                .tag("job", job)
                .tag("outcome", outcome.label())
                .register(registry));
      }
      claimsWon = counter("leasehold.claims.won", "Scheduled firings this node claimed", job);
      refusals =
          counter(
              "leasehold.claim.refusals",
              "Firings another node held or had already run (normal contention)",
              job);
      storeErrors =
          counter(
              "leasehold.store.errors",
              "Store calls that failed; nothing ran for them (fail closed)",
              job);
      leaseLosses =
          counter("leasehold.lease.losses", "Runs stopped because the lease was lost", job);
      missed =
          counter(
              "leasehold.missed.firings",
              "Firings no replica ran within their misfire grace (reported once per cluster)",
              job);
      paused =
          counter(
              "leasehold.paused.firings",
              "Firings that fell while the job was paused (recorded once per cluster)",
              job);
      retries =
          counter(
              "leasehold.retries",
              "Retries of failed or timed-out runs this node ran (each once per cluster)",
              job);
      duration =
          Timer.builder("leasehold.execution.duration")
              .description("How long executions ran")
              .tag("job", job)
              .serviceLevelObjectives(DURATION_BUCKETS)
              .register(registry);
      lag =
          Timer.builder("leasehold.fire.lag")
              .description("Scheduled instant to start of the run, for scheduled firings")
              .tag("job", job)
              .serviceLevelObjectives(LAG_BUCKETS)
              .register(registry);
      Gauge.builder("leasehold.last.claim.timestamp", lastClaim, AtomicLong::get)
          .description("When this node last started a scheduled run of the job (epoch s, 0=never)")
          .tag("job", job)
          .baseUnit("seconds")
          .register(registry);
      Gauge.builder("leasehold.last.success.timestamp", lastSuccessMillis, ms -> ms.get() / 1000.0)
          .description("When a run of the job last succeeded on this node (epoch s, 0=not yet)")
          .tag("job", job)
          .baseUnit("seconds")
          .register(registry);
      Gauge.builder("leasehold.job.interval", intervalMillis, ms -> ms.get() / 1000.0)
          .description("Gap between the job's next two firings (0 for a one-off)")
          .tag("job", job)
          .baseUnit("seconds")
          .register(registry);
    }

    private Counter counter(String name, String description, String job) {
      return Counter.builder(name).description(description).tag("job", job).register(registry);
    }
  }

  /**
   * @param clock the daemon's wall clock: each job's interval is the gap between its next two
   *     firings after this clock's now
   */
  public DaemonMetrics(StoreHealth health, List<JobConfig> configured, Clock clock) {
    this.health = health;
    this.clock = clock;
    jobsConfigured(configured);
    Gauge.builder("leasehold.running.jobs", running, AtomicInteger::get)
        .description("Jobs running on this node now")
        .register(registry);
    Gauge.builder("leasehold.store.up", health, h -> h.healthy() ? 1 : 0)
        .description("1 when the store answered recently, else 0")
        .register(registry);
    Gauge.builder("leasehold.build.info", () -> 1)
        .description("The build's version (always 1)")
        .tag("version", BuildInfo.version())
        .tag("java", System.getProperty("java.version"))
        .register(registry);
  }

  /**
   * The jobs of the configuration (at start, and after each reload): a job not seen before gets its
   * series, at zero; a removed job's series stay, at their last values.
   */
  public void jobsConfigured(List<JobConfig> configured) {
    Instant now = clock.instant();
    for (JobConfig job : configured) {
      Duration interval = ScheduleWords.interval(job.schedule(), now).orElse(Duration.ZERO);
      jobs.computeIfAbsent(job.name(), name -> new JobMeters(name, interval))
          .intervalMillis
          .set(interval.toMillis());
    }
  }

  /** A reload was applied ({@code true}) or refused. */
  public void reloaded(boolean applied) {
    (applied ? reloadsApplied : reloadsFailed).increment();
  }

  private Counter reloads(String result) {
    return Counter.builder("leasehold.config.reloads")
        .description("Reloads of the configuration file, applied or failed (nothing changed)")
        .tag("result", result)
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }

  public int runningJobs() {
    return running.get();
  }

  /** Wraps a runner so it counts as running while it runs; an asynchronous one stays so. */
  public JobRunner instrument(JobRunner runner) {
    if (runner instanceof AsyncJobRunner async) {
      return (AsyncJobRunner)
          context -> {
            running.incrementAndGet();
            CompletableFuture<JobResult> body;
            try {
              body = async.start(context);
            } catch (RuntimeException | Error e) {
              running.decrementAndGet();
              throw e;
            }
            if (body == null) {
              running.decrementAndGet();
              return null;
            }
            body.whenComplete((r, e) -> running.decrementAndGet());
            return body;
          };
    }
    return context -> {
      running.incrementAndGet();
      try {
        return runner.run(context);
      } finally {
        running.decrementAndGet();
      }
    };
  }

  private JobMeters meters(String job) {
    return jobs.computeIfAbsent(job, name -> new JobMeters(name, Duration.ZERO));
  }

  @Override
  public void storeAnswered() {
    health.answered();
  }

  @Override
  public void executionFinished(ExecutionRecord record) {
    JobMeters m = meters(record.job());
    m.executions.get(record.outcome()).increment();
    switch (record.outcome()) {
      case MISSED -> m.missed.increment();
      case PAUSED -> m.paused.increment();
      case SKIPPED, GROUP_FULL, RESET, REQUESTED, TAKEN -> {} // counted above; nothing ran
      default -> {
        m.duration.record(Duration.between(record.startedAt(), record.finishedAt()));
        if (record.attempt() > 1) {
          m.retries.increment();
        }
        if (record.trigger() == TriggerKind.SCHEDULED) {
          m.claimsWon.increment();
        }
        if (record.trigger() == TriggerKind.SCHEDULED && record.attempt() == 1) {
          m.lag.record(positive(Duration.between(record.fireTime(), record.startedAt())));
          m.lastClaim.accumulateAndGet(record.startedAt().getEpochSecond(), Math::max);
        }
        if (record.outcome() == Outcome.SUCCEEDED) {
          m.lastSuccessMillis.accumulateAndGet(record.finishedAt().toEpochMilli(), Math::max);
        }
        if (record.outcome() == Outcome.LEASE_LOST) {
          m.leaseLosses.increment();
        }
      }
    }
  }

  private static Duration positive(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }

  @Override
  public void claimRefused(String job, Instant firing) {
    meters(job).refusals.increment();
  }

  @Override
  public void storeUnavailable(String job, RuntimeException e) {
    health.failed();
    meters(job).storeErrors.increment();
  }
}
