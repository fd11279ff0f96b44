package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.hold.LeaseHold;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.lease.hold.LeaseTiming;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a job under a lease it holds: the body on the calling thread, the lease's {@link
 * LeaseHold} (renewals and the local deadline, G4 and G5), the timeout, the release and the history
 * record (returned, written by the caller). Stopping means {@link JobContext#requestStop} plus an
 * interrupt of the body's thread.
 */
final class JobRun implements LeaseHold.Listener {
  private static final Logger log = LoggerFactory.getLogger(JobRun.class);

  private final JobDefinition job;
  private final Lease lease;
  private final JobContext context;
  private final SchedulerParts parts;
  private final long sentNanos;

  private final Object lock = new Object();
  private LeaseHold hold;
  private Thread thread;
  private boolean finished;
  private boolean holding;
  private boolean slotLost;
  private Cancellable timeoutTask;
  private CompletableFuture<JobResult> body;

  /**
   * @param sentNanos the ticker's reading just before the claim or acquisition was sent
   * @param upstreamFence for a run after its upstream's: that run's fence, else 0
   * @param fence the run's fence: {@code lease}'s, or the claim's when it holds another lease
   */
  JobRun(
      JobDefinition job,
      Lease lease,
      Instant firing,
      int attempt,
      TriggerKind trigger,
      long upstreamFence,
      long sentNanos,
      long fence,
      SchedulerParts parts) {
    this.job = job;
    this.lease = lease;
    this.parts = parts;
    Duration timeout = job.policy().timeout();
    this.context =
        new JobContext(
            job.name(),
            firing,
            fence,
            parts.node(),
            attempt,
            trigger,
            timeout == null ? null : parts.clock().instant().plus(timeout),
            upstreamFence);
    this.sentNanos = sentNanos;
    context.leaseValidity(this::millisLeft);
  }

  /** How long the lease is presumed valid from now; 0 once lost. */
  private long millisLeft() {
    LeaseHold held;
    synchronized (lock) {
      held = hold;
    }
    if (held != null) {
      return held.millisLeft();
    }
    long left = LeaseTiming.validUntil(sentNanos, lease.ttl()) - parts.ticker().nanoTime();
    return context.leaseLost() ? 0 : Math.max(0, left / 1_000_000);
  }

  JobContext context() {
    return context;
  }

  /**
   * Starts renewing the lease before the body runs (while the run waits for a slot of its group); a
   * lost lease then ends the wait as {@link #stop} does.
   */
  void holdLease() {
    synchronized (lock) {
      if (holding) {
        return;
      }
      holding = true;
    }
    LeaseHolds.Taken taken = parts.holds().hold(lease, sentNanos, job.policy().renewEvery(), this);
    if (taken.held()) {
      synchronized (lock) {
        hold = taken.hold();
      }
    } else {
      stop(StopReason.LEASE_LOST, "the lease's validity had passed before it could be held");
    }
  }

  /**
   * {@link #run} holding {@code seat}, a slot lease of the job's concurrency group, taken just
   * before: it is renewed along with the run's lease (a lost slot stops the body as a lost lease
   * does) and released after the run.
   *
   * @param seatSentNanos the ticker's reading just before the slot's acquisition was sent
   */
  ExecutionRecord run(Lease seat, long seatSentNanos) {
    LeaseHolds.Taken taken =
        parts
            .holds()
            .hold(
                seat,
                seatSentNanos,
                job.policy().renewEvery(),
                (h, loss) -> {
                  synchronized (lock) {
                    slotLost = true;
                  }
                  stop(
                      StopReason.LEASE_LOST,
                      "slot " + seat.name() + " of its group: " + loss.detail());
                });
    try {
      return run();
    } finally {
      taken.holdIfHeld().ifPresent(LeaseHold::release); // nothing after a loss
    }
  }

  /**
   * Ends a run whose body never started: the lease is released (unless lost) and the record says
   * {@code outcome} with {@code detail}, or the stop reason when a stop came first.
   */
  ExecutionRecord notRun(Outcome outcome, String detail) {
    synchronized (lock) {
      finished = true;
    }
    if (!context.leaseLost()) {
      release();
    }
    return RunRecords.notRun(context, context.fence(), parts.clock().instant(), outcome, detail);
  }

  /** Runs the body on the calling thread, releases the lease and returns the history record. */
  ExecutionRecord run() {
    Instant startedAt = parts.clock().instant();
    long startNanos = parts.ticker().nanoTime();
    begin(Thread.currentThread());
    holdLease();
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
      end(true);
    }
    return record(startedAt, startNanos, result);
  }

  /**
   * Starts an {@link AsyncJobRunner}'s body and returns at once: no thread waits while it runs. A
   * stop cancels its future instead of interrupting a thread. When the body ends, a worker releases
   * the lease and hands the history record to {@code done} ({@code null} only if that failed
   * unexpectedly), as {@link #run} would have returned it.
   */
  void start(AsyncJobRunner runner, Consumer<ExecutionRecord> done) {
    Instant startedAt = parts.clock().instant();
    long startNanos = parts.ticker().nanoTime();
    begin(null);
    holdLease();
    CompletableFuture<JobResult> started;
    try {
      started = runner.start(context);
      if (started == null) {
        started = CompletableFuture.completedFuture(null);
      }
    } catch (RuntimeException | LinkageError e) {
      started = CompletableFuture.failedFuture(e);
    }
    boolean cancel;
    synchronized (lock) {
      body = started;
      cancel = context.stopRequested(); // a stop that came before the body had a future
    }
    if (cancel) {
      started.cancel(true);
    }
    started.whenComplete(
        (result, failure) ->
            parts
                .workers()
                .execute(
                    () -> {
                      ExecutionRecord row = null;
                      try {
                        end(false);
                        row = record(startedAt, startNanos, resultOf(result, failure));
                      } finally {
                        done.accept(row);
                      }
                    }));
  }

  private static JobResult resultOf(JobResult result, Throwable failure) {
    if (failure == null) {
      return result == null ? JobResult.failed("runner returned no result") : result;
    }
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof CancellationException || cause instanceof InterruptedException) {
      return JobResult.failed("interrupted");
    }
    return JobResult.failed(cause.toString());
  }

  /** The body begins: on {@code thread} (null: asynchronous); the timeout starts. */
  private void begin(Thread thread) {
    synchronized (lock) {
      this.thread = thread;
      Duration timeout = job.policy().timeout();
      if (timeout != null) {
        timeoutTask =
            parts.timer().schedule(() -> stop(StopReason.TIMED_OUT, "timeout " + timeout), timeout);
      }
    }
  }

  /** The body ended: no stop reaches it any more, the timeout and the renewals end. */
  private void end(boolean onItsThread) {
    synchronized (lock) {
      finished = true;
      if (timeoutTask != null) {
        timeoutTask.cancel();
      }
      if (onItsThread) {
        Thread.interrupted(); // a stop that raced with the end of the body must not leak
      }
    }
  }

  /** Releases the lease (unless lost), logs the execution line and returns the history record. */
  private ExecutionRecord record(Instant startedAt, long startNanos, JobResult result) {
    boolean lostSlot;
    synchronized (lock) {
      lostSlot = slotLost;
    }
    if (!context.leaseLost() || lostSlot) {
      release(); // a lost group slot leaves the job's own lease to free (the hold knows if lost)
    }
    long millis = Duration.ofNanos(parts.ticker().nanoTime() - startNanos).toMillis();
    return RunRecords.ran(
        context, context.fence(), startedAt, parts.clock().instant(), millis, result);
  }

  /** A detail as one quoted token ({@link RunRecords#quoted}). */
  static String quoted(String detail) {
    return RunRecords.quoted(detail);
  }

  /** The hold of the run's lease: a loss stops the body (G4). */
  @Override
  public void lost(LeaseHold hold, LeaseHold.Loss loss) {
    stop(StopReason.LEASE_LOST, loss.detail());
  }

  @Override
  public void renewed(LeaseHold hold) {
    context.leaseRenewed();
  }

  /** Asks the body to stop; the first reason wins. Safe from any thread. */
  void stop(StopReason reason, String why) {
    CompletableFuture<JobResult> cancel;
    synchronized (lock) {
      if (finished || !context.requestStop(reason)) {
        return;
      }
      if (reason == StopReason.LEASE_LOST) {
        log.warn(
            "lease lost job={} firing={} fence={}: {}; stopping the job",
            job.name(),
            context.firing(),
            context.fence(),
            why);
      } else {
        log.info("stopping job={} firing={}: {}", job.name(), context.firing(), why);
      }
      if (thread != null) {
        thread.interrupt();
      }
      cancel = body;
    }
    if (cancel != null) {
      cancel.cancel(true); // outside the lock: its completion hands the end to a worker
    }
  }

  /** Frees the lease: through its hold (which does nothing once the lease was lost), if held. */
  private void release() {
    LeaseHold held;
    synchronized (lock) {
      held = hold;
    }
    if (held != null) {
      held.release();
    } else {
      parts.release(lease);
    }
  }
}
