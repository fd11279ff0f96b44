package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a job's history rows are notifications still to send ({@link NoticeDesk}): a firing's
 * last row (no retry follows it, by {@link FiringRules#afterRun} of the row alone, as every replica
 * computes it) past the job's mark, recent enough, whose outcome can make an event.
 */
final class NoticeRows {

  /** Rows that finished longer ago are never sent. */
  static final Duration WINDOW = Duration.ofMinutes(15);

  private final ExecutionLog executionLog;
  private final FiringRules rules;
  private final Clock clock;

  NoticeRows(ExecutionLog executionLog, FiringRules rules, Clock clock) {
    this.executionLog = executionLog;
    this.rules = rules;
    this.clock = clock;
  }

  /**
   * The job's last rows past {@code mark} among its newest {@code rows}, finished within {@link
   * #WINDOW} and at least {@code minAge} ago, one per firing (its highest attempt), oldest firing
   * first.
   */
  List<ExecutionRecord> pending(JobDefinition job, Instant mark, Duration minAge, int rows) {
    Instant now = clock.instant();
    Instant oldest = now.minus(WINDOW);
    Map<Instant, ExecutionRecord> byFiring = new HashMap<>();
    for (ExecutionRecord r : executionLog.recent(job.name(), rows)) {
      if (mark != null && !r.fireTime().isAfter(mark)) {
        continue;
      }
      byFiring.merge(r.fireTime(), r, (a, b) -> a.attempt() >= b.attempt() ? a : b);
    }
    List<ExecutionRecord> pending = new ArrayList<>();
    for (ExecutionRecord r : byFiring.values()) {
      if (notifiable(r.outcome())
          && r.finishedAt().isAfter(oldest)
          && !r.finishedAt().plus(minAge).isAfter(now)
          && !rules.afterRun(job.policy().retry(), job.schedule(), r).retrying()) {
        pending.add(r);
      }
    }
    pending.sort(Comparator.comparing(ExecutionRecord::fireTime));
    return pending;
  }

  /**
   * Rows that can make an event: not skipped, paused or reset firings, nor the trigger queue's
   * request rows.
   */
  static boolean notifiable(Outcome outcome) {
    return outcome != Outcome.SKIPPED
        && outcome != Outcome.PAUSED
        && outcome != Outcome.RESET
        && outcome != Outcome.REQUESTED
        && outcome != Outcome.TAKEN;
  }
}
