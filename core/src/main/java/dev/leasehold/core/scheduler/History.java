package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
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

  /** Told of every row written here, on the thread that wrote it. */
  interface Written {
    Written NONE = (row, retrying) -> {};

    void written(ExecutionRecord row, boolean retrying);
  }

  private final ExecutionLog executionLog;
  private final SchedulerListener listener;
  private final SlotOwner owner;
  private final Executor workers;
  private final Written written;

  // the owner's: the rows waiting for the store, and their retry
  private final Deque<ExecutionRecord> pending = new ArrayDeque<>();
  private Duration backoff = FIRST_RETRY;
  private boolean retryScheduled;
  private boolean flushing;

  /**
   * @param written told of every row written here at once (the notice desk; a row written late is
   *     found by its poll)
   */
  History(
      ExecutionLog executionLog,
      SchedulerListener listener,
      SlotOwner owner,
      Executor workers,
      Written written) {
    this.executionLog = executionLog;
    this.listener = listener;
    this.owner = owner;
    this.workers = workers;
    this.written = written;
  }

  SchedulerListener listener() {
    return listener;
  }

  void record(ExecutionRecord record) {
    record(record, false);
  }

  /** The job's newest rows, newest first (read on a worker). */
  List<ExecutionRecord> rows(String job, int limit) {
    return executionLog.recent(job, limit);
  }

  /**
   * Writes {@code record}, outside the owner (on a worker or the caller's thread); {@code retrying}
   * tells the listener that a retry of the firing follows (so this row is not the firing's last).
   */
  void record(ExecutionRecord record, boolean retrying) {
    // behind rows that still wait, it waits too: the order is kept
    boolean behind = owner.call(() -> !pending.isEmpty() && enqueue(record));
    // the common case writes on this thread, so runs ending together do not wait for each other
    boolean wrote = !behind && write(record);
    if (!behind && !wrote) {
      owner.run(
          () -> {
            enqueue(record);
            scheduleRetry();
          });
    }
    if (wrote) {
      written.written(record, retrying);
    }
    listener.executionFinished(record, retrying);
    if (record.outcome() == Outcome.MISSED) {
      listener.firingMissed(record.job(), record.fireTime());
    }
  }

  /**
   * Writes {@code row}, a chain's hand-off ({@link Chains}), in order with every other row and
   * before the upstream's own row that the caller writes next: if it waits for the store, so does
   * that row. Nobody is told of it: it is not a run.
   */
  void handOff(ExecutionRecord row) {
    boolean behind = owner.call(() -> !pending.isEmpty() && enqueue(row));
    if (!behind && !write(row)) {
      owner.run(
          () -> {
            enqueue(row);
            scheduleRetry();
          });
    }
  }

  /** Tries the waiting rows once more (at stop); what still fails is logged and dropped. */
  void flushAtStop() {
    List<ExecutionRecord> left =
        owner.call(
            () -> {
              List<ExecutionRecord> rows = List.copyOf(pending);
              pending.clear();
              return rows;
            });
    int wrote = writeInOrder(left);
    for (ExecutionRecord r : left.subList(wrote, left.size())) {
      log.warn(
          "history row lost at stop job={} firing={} outcome={}: the store did not answer",
          r.job(),
          r.fireTime(),
          r.outcome().label());
    }
  }

  /** Rows waiting for the store (for tests). */
  int pending() {
    return owner.call(pending::size);
  }

  /** Event. Always true. */
  private boolean enqueue(ExecutionRecord record) {
    if (pending.size() >= MAX_PENDING) {
      ExecutionRecord dropped = pending.removeFirst();
      log.warn(
          "history row dropped job={} firing={}: {} rows already wait for the store",
          dropped.job(),
          dropped.fireTime(),
          MAX_PENDING);
    }
    pending.addLast(record);
    return true;
  }

  /** Event: the waiting rows go to a worker, which writes them in order until one fails. */
  private void flush() {
    retryScheduled = false;
    if (flushing || pending.isEmpty()) {
      return;
    }
    flushing = true;
    List<ExecutionRecord> rows = List.copyOf(pending);
    try {
      workers.execute(
          () -> {
            int wrote = writeInOrder(rows);
            owner.execute(() -> flushed(rows.subList(0, wrote), wrote < rows.size()));
          });
    } catch (RuntimeException e) {
      flushing = false; // the workers are shut down: the stop flush is the last chance
    }
  }

  /** Event: {@code wrote} reached the store; after a failure, tried again later. */
  private void flushed(List<ExecutionRecord> wrote, boolean failed) {
    flushing = false;
    wrote.forEach(pending::remove);
    if (failed) {
      scheduleRetry();
    } else {
      backoff = FIRST_RETRY;
      flush(); // rows that came meanwhile
    }
  }

  /** Writes {@code rows} in order, stopping at the first failure; returns how many went. */
  private int writeInOrder(List<ExecutionRecord> rows) {
    for (int i = 0; i < rows.size(); i++) {
      if (!write(rows.get(i))) {
        return i;
      }
    }
    return rows.size();
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

  /** Event. */
  private void scheduleRetry() {
    if (retryScheduled) {
      return;
    }
    retryScheduled = true;
    Duration delay = backoff;
    backoff =
        backoff.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : backoff.multipliedBy(2);
    try {
      owner.later(delay, this::flush);
    } catch (RuntimeException e) {
      retryScheduled = false; // the timer is closed: the stop flush is the last chance
    }
  }
}
