package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the scheduler writes history: one row per run, per skipped and per missed firing,
 * each written once (the caller holds the firing's claim, so no other replica writes that row). A
 * failing write is logged and changes nothing else; the listener hears of every row.
 */
final class History {
  private static final Logger log = LoggerFactory.getLogger(History.class);

  private final ExecutionLog executionLog;
  private final SchedulerListener listener;

  History(ExecutionLog executionLog, SchedulerListener listener) {
    this.executionLog = executionLog;
    this.listener = listener;
  }

  SchedulerListener listener() {
    return listener;
  }

  void record(ExecutionRecord record) {
    try {
      executionLog.record(record);
    } catch (RuntimeException e) {
      log.warn(
          "could not write history job={} firing={}: {}",
          record.job(),
          record.fireTime(),
          e.toString());
    }
    listener.executionFinished(record);
    if (record.outcome() == Outcome.MISSED) {
      listener.firingMissed(record.job(), record.fireTime());
    }
  }
}
