package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a job under a lease it holds: the body on the calling thread, a watchdog on the timer
 * (G4, G5), the timeout, the release and the history record.
 *
 * <p><b>Why the holder never outlives its lease unknowingly (G5).</b> Before each claim or renewal
 * the monotonic time is taken; when the store confirms, the lease is valid until that instant plus
 * the TTL, because the store started its TTL no earlier than the request was sent. A renewal the
 * store refuses stops the job at once. A renewal that cannot reach the store is retried, and an
 * expiry check fires at the presumed expiry minus a safety margin (a tenth of the TTL, for rate
 * differences between this node's clock and the store's): whether or not a renewal call is still
 * hanging, the job is stopped by then. Stopping means {@link JobContext#requestStop} plus an
 * interrupt of the job's thread.
 */
final class Execution {
  private static final Logger log = LoggerFactory.getLogger(Execution.class);

  private final JobDefinition job;
  private final Lease lease;
  private final JobContext context;
  private final LeaseStore store;
  private final Clock clock;
  private final Ticker ticker;
  private final TaskTimer timer;
  private final Executor workers;

  private final Object lock = new Object();
  private Thread thread;
  private boolean finished;
  private long validUntilNanos;
  private Cancellable renewTask;
  private Cancellable expiryTask;
  private Cancellable timeoutTask;
  private boolean renewing;

  Execution(
      JobDefinition job,
      Lease lease,
      Instant firing,
      int attempt,
      TriggerKind trigger,
      long claimSentNanos,
      SchedulerParts parts) {
    this.job = job;
    this.lease = lease;
    this.store = parts.store();
    this.clock = parts.clock();
    this.ticker = parts.ticker();
    this.timer = parts.timer();
    this.workers = parts.workers();
    Duration timeout = job.policy().timeout();
    this.context =
        new JobContext(
            job.name(),
            firing,
            lease.fence(),
            parts.node(),
            attempt,
            trigger,
            timeout == null ? null : clock.instant().plus(timeout));
    this.validUntilNanos = claimSentNanos + lease.ttl().toNanos();
  }

  JobContext context() {
    return context;
  }

  Lease lease() {
    return lease;
  }

  /** Runs the body on the calling thread and returns the history record. */
  ExecutionRecord run() {
    Instant startedAt = clock.instant();
    long startNanos = ticker.nanoTime();
    synchronized (lock) {
      thread = Thread.currentThread();
      scheduleRenewal(job.policy().renewEvery());
      scheduleExpiryCheck();
      Duration timeout = job.policy().timeout();
      if (timeout != null) {
        timeoutTask =
            timer.schedule(() -> stop(StopReason.TIMED_OUT, "timeout " + timeout), timeout);
      }
    }
    if (context.stopRequested()) {
      Thread.currentThread().interrupt();
    }
    JobResult result;
    try {
      result = job.runner().run(context);
      if (result == null) {
        result = JobResult.failed("runner returned no result");
      }
    } catch (InterruptedException e) {
      result = JobResult.failed("interrupted");
    } catch (Exception | LinkageError e) {
      result = JobResult.failed(e.toString());
    } finally {
      synchronized (lock) {
        finished = true;
        cancel(renewTask);
        cancel(expiryTask);
        cancel(timeoutTask);
        Thread.interrupted(); // a stop that raced with the end of the body must not leak
      }
    }
    Outcome outcome =
        context
            .stopReason()
            .map(
                reason ->
                    switch (reason) {
                      case LEASE_LOST -> Outcome.LEASE_LOST;
                      case TIMED_OUT -> Outcome.TIMED_OUT;
                      case SHUTDOWN -> Outcome.FAILED;
                    })
            .orElse(result.outcome());
    String detail = result.detail();
    if (context.stopReason().isPresent()) {
      String why = "stopped: " + context.stopReason().get().name().toLowerCase().replace('_', ' ');
      detail = detail == null ? why : why + "; " + detail;
    }
    if (!context.leaseLost()) {
      release();
    }
    long millis = Duration.ofNanos(ticker.nanoTime() - startNanos).toMillis();
    Instant finishedAt = clock.instant();
    ExecutionRecord record =
        new ExecutionRecord(
            job.name(),
            context.firing(),
            context.node(),
            lease.fence(),
            context.trigger(),
            startedAt,
            finishedAt,
            outcome,
            result.exitCode(),
            detail);
    log.info(
        "execution job={} firing={} node={} fence={} trigger={} outcome={} duration={}ms{}",
        job.name(),
        context.firing(),
        context.node(),
        lease.fence(),
        context.trigger().label(),
        outcome.label(),
        millis,
        detail == null ? "" : " detail=\"" + detail + "\"");
    return record;
  }

  /** Asks the body to stop; the first reason wins. Safe from any thread. */
  void stop(StopReason reason, String why) {
    synchronized (lock) {
      if (finished || !context.requestStop(reason)) {
        return;
      }
      if (reason == StopReason.LEASE_LOST) {
        log.warn(
            "lease lost job={} firing={} fence={}: {}; stopping the job",
            job.name(),
            context.firing(),
            lease.fence(),
            why);
      } else {
        log.info("stopping job={} firing={}: {}", job.name(), context.firing(), why);
      }
      if (thread != null) {
        thread.interrupt();
      }
    }
  }

  private void release() {
    try {
      if (!store.release(lease)) {
        log.warn(
            "release refused job={} fence={}: the lease had expired", job.name(), lease.fence());
      }
    } catch (RuntimeException e) {
      log.warn(
          "release failed job={} fence={}: {}; the lease ends by its TTL",
          job.name(),
          lease.fence(),
          e.toString());
    }
  }

  // --- watchdog ---------------------------------------------------------------------------

  private void scheduleRenewal(Duration delay) {
    renewTask = timer.schedule(() -> workers.execute(this::renewOnce), delay);
  }

  private void renewOnce() {
    synchronized (lock) {
      if (finished || renewing) {
        return;
      }
      renewing = true;
    }
    long sent = ticker.nanoTime();
    Boolean renewed;
    String error = null;
    try {
      renewed = store.renew(lease, job.policy().ttl());
    } catch (RuntimeException e) {
      renewed = null;
      error = e.toString();
    }
    synchronized (lock) {
      renewing = false;
      if (finished) {
        return;
      }
      if (Boolean.TRUE.equals(renewed)) {
        validUntilNanos = sent + job.policy().ttl().toNanos();
        cancel(expiryTask);
        scheduleExpiryCheck();
        scheduleRenewal(job.policy().renewEvery());
        return;
      }
    }
    if (Boolean.FALSE.equals(renewed)) {
      stop(StopReason.LEASE_LOST, "the store refused the renewal (lease expired or taken)");
      return;
    }
    Duration left = Duration.ofNanos(validUntilNanos - ticker.nanoTime());
    log.warn(
        "renewal failed job={} fence={}: {}; lease presumed valid for {}ms more",
        job.name(),
        lease.fence(),
        error,
        Math.max(0, left.toMillis()));
    synchronized (lock) {
      if (!finished) {
        Duration retry = job.policy().renewEvery().dividedBy(2);
        scheduleRenewal(retry.isZero() ? Duration.ofMillis(1) : retry);
      }
    }
  }

  /** Safety margin before the presumed expiry: a tenth of the TTL. */
  private long marginNanos() {
    return job.policy().ttl().toNanos() / 10;
  }

  private void scheduleExpiryCheck() {
    long delay = validUntilNanos - marginNanos() - ticker.nanoTime();
    expiryTask = timer.schedule(this::checkExpiry, Duration.ofNanos(Math.max(0, delay)));
  }

  private void checkExpiry() {
    synchronized (lock) {
      if (finished) {
        return;
      }
      if (ticker.nanoTime() < validUntilNanos - marginNanos()) {
        scheduleExpiryCheck();
        return;
      }
    }
    stop(StopReason.LEASE_LOST, "no renewal reached the store before the lease's presumed expiry");
  }

  private static void cancel(Cancellable task) {
    if (task != null) {
      task.cancel();
    }
  }
}
