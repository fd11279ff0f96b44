package dev.leasehold.core.job;

import java.time.Instant;
import java.util.Objects;

/**
 * One line of the execution history: one attempt at one firing.
 *
 * @param job the job name
 * @param fireTime the scheduled instant (for a manual trigger, the trigger instant)
 * @param node the node that ran (or skipped) it
 * @param fence the fence of the lease it ran under, 0 when skipped
 * @param trigger scheduled or manual
 * @param startedAt wall clock of the node when the body started
 * @param finishedAt wall clock of the node when it ended
 * @param outcome how it ended
 * @param exitCode exit code or HTTP status, or {@code null}
 * @param detail short error summary, or {@code null}
 */
public record ExecutionRecord(
    String job,
    Instant fireTime,
    String node,
    long fence,
    TriggerKind trigger,
    Instant startedAt,
    Instant finishedAt,
    Outcome outcome,
    Integer exitCode,
    String detail) {

  /** Longest detail kept; longer summaries are cut so a history row stays small. */
  public static final int MAX_DETAIL = 500;

  public ExecutionRecord {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(fireTime, "fireTime");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(finishedAt, "finishedAt");
    Objects.requireNonNull(outcome, "outcome");
    if (detail != null && detail.length() > MAX_DETAIL) {
      detail = detail.substring(0, MAX_DETAIL - 1) + "…";
    }
  }
}
