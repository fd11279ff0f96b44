package dev.leasehold.app.admin;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.scheduler.SchedulerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daemon's metrics, fed by the scheduler's listener and by a wrapper around every job runner:
 * {@code leasehold_executions_total{job,outcome}}, {@code leasehold_firings_missed_total{job}},
 * {@code leasehold_claim_refusals_total{job}}, {@code leasehold_store_errors_total{job}} and {@code
 * leasehold_running_jobs}. Created only when the admin endpoint is on, which is the only place they
 * are read.
 */
public final class DaemonMetrics implements SchedulerListener {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicInteger running = new AtomicInteger();
  private final StoreHealth health;

  public DaemonMetrics(StoreHealth health) {
    this.health = health;
    Gauge.builder("leasehold.running.jobs", running, AtomicInteger::get)
        .description("Jobs running on this node now")
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

  /** Wraps a runner so it counts as running while it runs. */
  public JobRunner instrument(JobRunner runner) {
    return context -> {
      running.incrementAndGet();
      try {
        return runner.run(context);
      } finally {
        running.decrementAndGet();
      }
    };
  }

  @Override
  public void storeAnswered() {
    health.answered();
  }

  @Override
  public void executionFinished(ExecutionRecord record) {
    Counter.builder("leasehold.executions")
        .description("Executions by job and outcome")
        .tag("job", record.job())
        .tag("outcome", record.outcome().label())
        .register(registry)
        .increment();
  }

  @Override
  public void firingMissed(String job, Instant firing) {
    Counter.builder("leasehold.firings.missed")
        .description("Firings no replica ran within their misfire grace, reported by this node")
        .tag("job", job)
        .register(registry)
        .increment();
  }

  @Override
  public void claimRefused(String job, Instant firing) {
    Counter.builder("leasehold.claim.refusals")
        .description("Firings claimed by another node (normal contention)")
        .tag("job", job)
        .register(registry)
        .increment();
  }

  @Override
  public void storeUnavailable(String job, RuntimeException e) {
    health.failed();
    Counter.builder("leasehold.store.errors")
        .description("Store calls that failed; nothing ran for them (fail closed)")
        .tag("job", job)
        .register(registry)
        .increment();
  }
}
