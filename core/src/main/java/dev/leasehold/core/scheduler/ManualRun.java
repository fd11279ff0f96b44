package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A run asked for by hand ({@link Scheduler#trigger}, or a request of {@code leasehold trigger}
 * taken by {@link TriggerRequests}). It goes through the job's slot like a scheduled firing ({@link
 * SlotMachine.Trigger}): refused while the job has a claim or run in flight here, else the job's
 * lease is taken with {@code acquire} (so it never overlaps a scheduled run anywhere and never
 * moves the watermark), and the run takes the same path as a scheduled one: its concurrency group,
 * the retry plan (a manual run is never retried), the history and the notifications.
 *
 * <p>Its blocking steps (the acquisition, {@link Take}, the body) run on {@link #executor}: the
 * thread that called {@link Scheduler#trigger} (it waits in {@link #await} and runs them, as before
 * the slot took over), or the scheduler's workers for a request.
 */
final class ManualRun {

  /** Under the job's lease, before the body, on the run's thread: whether to run. */
  interface Take {
    Take ALWAYS = lease -> true;

    boolean underLease(Lease lease);
  }

  private final Instant firing;
  private final TriggerKind kind;
  private final long upstreamFence;
  private final Take take;
  private final UnaryOperator<ExecutionRecord> row;
  private final BlockingQueue<Runnable> callerTasks;
  private final Executor executor;
  private final CompletableFuture<Optional<ExecutionRecord>> result = new CompletableFuture<>();

  private ManualRun(
      Instant firing,
      TriggerKind kind,
      long upstreamFence,
      Take take,
      UnaryOperator<ExecutionRecord> row,
      BlockingQueue<Runnable> callerTasks,
      Executor executor) {
    this.firing = firing;
    this.kind = kind;
    this.upstreamFence = upstreamFence;
    this.take = take;
    this.row = row;
    this.callerTasks = callerTasks;
    this.executor = executor;
  }

  /** A run whose steps the calling thread performs, waiting in {@link #await}. */
  static ManualRun onCallingThread(Instant firing) {
    BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    return new ManualRun(
        firing, TriggerKind.MANUAL, 0, Take.ALWAYS, UnaryOperator.identity(), tasks, tasks::add);
  }

  /**
   * A run of {@code request} whose steps the calling thread performs, waiting in {@link #await}.
   */
  static ManualRun onCallingThread(
      TriggerRequest request, Take take, UnaryOperator<ExecutionRecord> row) {
    BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    return new ManualRun(
        request.at(), request.kind(), request.upstreamFence(), take, row, tasks, tasks::add);
  }

  /**
   * A run of {@code request} on the workers; {@code take} decides under the lease, {@code row}
   * amends its record.
   */
  static ManualRun onWorkers(
      TriggerRequest request, Executor workers, Take take, UnaryOperator<ExecutionRecord> row) {
    return new ManualRun(
        request.at(), request.kind(), request.upstreamFence(), take, row, null, workers);
  }

  Instant firing() {
    return firing;
  }

  /** The run's trigger: manual, after its upstream, or a backfill. */
  TriggerKind kind() {
    return kind;
  }

  /** For a run after its upstream's: that run's fence, else 0. */
  long upstreamFence() {
    return upstreamFence;
  }

  /**
   * The scheduler's parts with this run's {@link #executor} as the workers (its lease is still
   * renewed on the scheduler's).
   */
  SchedulerParts parts(SchedulerParts scheduler) {
    return scheduler.on(executor);
  }

  boolean take(Lease lease) {
    return take.underLease(lease);
  }

  /** The record as history keeps it. */
  ExecutionRecord row(ExecutionRecord record) {
    return row.apply(record);
  }

  /** The run ended with {@code record}, or without one (refused, or nothing ran). */
  void done(ExecutionRecord record) {
    result.complete(Optional.ofNullable(record));
  }

  void failed(RuntimeException e) {
    result.completeExceptionally(e);
  }

  /** For a caller that waits: its result, for {@link #onWorkers} ones a log line. */
  CompletableFuture<Optional<ExecutionRecord>> result() {
    return result;
  }

  /**
   * Runs this run's steps on the calling thread until it ended; returns its record.
   *
   * @throws RuntimeException what a step threw (a store error, a late answer)
   */
  Optional<ExecutionRecord> await() {
    try {
      while (!result.isDone()) {
        Runnable task = callerTasks.poll(10, TimeUnit.MILLISECONDS);
        if (task != null) {
          task.run();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while a manual run was under way", e);
    }
    try {
      return result.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }
}
