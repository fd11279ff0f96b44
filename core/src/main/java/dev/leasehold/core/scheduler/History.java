package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.time.TaskTimer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the scheduler writes history: one row per run, per skipped and per missed firing,
 * each written once (the caller holds the firing's claim, so no other replica writes that row). The
 * listener hears of every row at once.
 *
 * <p>A write that fails (the store is cut off, typically right when a run was stopped because its
 * lease could not be renewed) is kept and tried again, in order, with a capped backoff, before any
 * later row and once more at stop; so a {@code lease-lost} run still reaches the history once the
 * store answers. At most {@link #MAX_PENDING} rows wait; beyond that the oldest is dropped with a
 * warning. A write that failed ambiguously (a timeout after the store applied it) can then appear
 * twice; that is the price of not losing it.
 */
final class History {
  private static final Logger log = LoggerFactory.getLogger(History.class);
  static final int MAX_PENDING = 1000;
  static final Duration FIRST_RETRY = Duration.ofSeconds(2);
  static final Duration MAX_RETRY = Duration.ofSeconds(60);

  private final ExecutionLog executionLog;
  private final SchedulerListener listener;
  private final TaskTimer timer;
  private final Executor workers;
  private final Deque<ExecutionRecord> pending = new ArrayDeque<>();
  private Duration backoff = FIRST_RETRY;
  private boolean retryScheduled;
  private volatile NoticeDesk desk;

  History(
      ExecutionLog executionLog, SchedulerListener listener, TaskTimer timer, Executor workers) {
    this.executionLog = executionLog;
    this.listener = listener;
    this.timer = timer;
    this.workers = workers;
  }

  SchedulerListener listener() {
    return listener;
  }

  /** The desk told of every row written here at once (a row written late is found by its poll). */
  void desk(NoticeDesk desk) {
    this.desk = desk;
  }

  void record(ExecutionRecord record) {
    record(record, false);
  }

  /** The job's newest rows, newest first (read on a worker). */
  List<ExecutionRecord> rows(String job, int limit) {
    return executionLog.recent(job, limit);
  }

  /**
   * Writes {@code record}; {@code retrying} tells the listener that a retry of the firing follows
   * (so this row is not the firing's last).
   */
  void record(ExecutionRecord record, boolean retrying) {
    boolean behind;
    synchronized (this) {
      behind = !pending.isEmpty();
      if (behind) {
        enqueue(record); // keep the order: behind what is still waiting
      }
    }
    // the common case writes outside the lock, so runs ending together do not queue here
    boolean written = !behind && write(record);
    if (!behind && !written) {
      synchronized (this) {
        enqueue(record);
        scheduleRetry();
      }
    }
    NoticeDesk notices = desk;
    if (written && notices != null) {
      notices.written(record, retrying);
    }
    listener.executionFinished(record, retrying);
    if (record.outcome() == Outcome.MISSED) {
      listener.firingMissed(record.job(), record.fireTime());
    }
  }

  /** Tries the waiting rows once more (at stop); what still fails is logged and dropped. */
  void flushAtStop() {
    synchronized (this) {
      flushLocked();
      for (ExecutionRecord r : pending) {
        log.warn(
            "history row lost at stop job={} firing={} outcome={}: the store did not answer",
            r.job(),
            r.fireTime(),
            r.outcome().label());
      }
      pending.clear();
    }
  }

  /** Rows waiting for the store (for tests). */
  synchronized int pending() {
    return pending.size();
  }

  private void enqueue(ExecutionRecord record) {
    if (pending.size() >= MAX_PENDING) {
      ExecutionRecord dropped = pending.removeFirst();
      log.warn(
          "history row dropped job={} firing={}: {} rows already wait for the store",
          dropped.job(),
          dropped.fireTime(),
          MAX_PENDING);
    }
    pending.addLast(record);
  }

  private void flushLocked() {
    while (!pending.isEmpty()) {
      if (!write(pending.peekFirst())) {
        scheduleRetry();
        return;
      }
      pending.removeFirst();
    }
    backoff = FIRST_RETRY;
  }

  private boolean write(ExecutionRecord record) {
    try {
      executionLog.record(record);
      return true;
    } catch (RuntimeException e) {
      log.warn(
          "could not write history job={} firing={}: {}; trying again",
          record.job(),
          record.fireTime(),
          e.toString());
      return false;
    }
  }

  private void scheduleRetry() {
    if (retryScheduled) {
      return;
    }
    retryScheduled = true;
    Duration delay = backoff;
    backoff =
        backoff.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : backoff.multipliedBy(2);
    try {
      timer.schedule(
          () ->
              workers.execute(
                  () -> {
                    synchronized (this) {
                      retryScheduled = false;
                      flushLocked();
                    }
                  }),
          delay);
    } catch (RuntimeException e) {
      retryScheduled = false; // the timer is closed: the stop flush is the last chance
    }
  }
}
