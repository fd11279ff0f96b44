package dev.leasehold.core.job;

import java.time.Duration;
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
 * @param output what the run said: the tail of a command's stdout and stderr (stderr lines marked
 *     {@code [stderr]}), or an HTTP job's status line and the start of its body; {@code null} when
 *     there was nothing to keep (a skip, a miss, a Java job). Cut to its last {@link #MAX_OUTPUT}
 *     characters.
 * @param attempt which run of the firing this is: 1 for the first, 2 for the first retry after a
 *     {@code failed} or {@code timed-out} run (a job's {@code retry}), and so on; 1 for skips,
 *     misses, pauses and manual triggers
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
    String detail,
    String output,
    int attempt) {

  /** Longest detail kept; longer summaries are cut so a history row stays small. */
  public static final int MAX_DETAIL = 500;

  /**
   * Longest output kept, in characters: a bound for every store's column or field. The runners keep
   * less (the last {@value #OUTPUT_TAIL} bytes by default).
   */
  public static final int MAX_OUTPUT = 16_384;

  /** Bytes of a run's output the runners keep by default: its last 4 KiB. */
  public static final int OUTPUT_TAIL = 4096;

  /** A record of a first attempt (history written before retries were kept reads as one). */
  public ExecutionRecord(
      String job,
      Instant fireTime,
      String node,
      long fence,
      TriggerKind trigger,
      Instant startedAt,
      Instant finishedAt,
      Outcome outcome,
      Integer exitCode,
      String detail,
      String output) {
    this(
        job,
        fireTime,
        node,
        fence,
        trigger,
        startedAt,
        finishedAt,
        outcome,
        exitCode,
        detail,
        output,
        1);
  }

  /** A record without output (skips, misses, and history written before output was kept). */
  public ExecutionRecord(
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
    this(
        job,
        fireTime,
        node,
        fence,
        trigger,
        startedAt,
        finishedAt,
        outcome,
        exitCode,
        detail,
        null);
  }

  public ExecutionRecord {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(fireTime, "fireTime");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(finishedAt, "finishedAt");
    Objects.requireNonNull(outcome, "outcome");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, got " + attempt);
    }
    if (detail != null && detail.length() > MAX_DETAIL) {
      detail = detail.substring(0, MAX_DETAIL - 1) + "…";
    }
    if (output != null && output.length() > MAX_OUTPUT) {
      int from = output.length() - MAX_OUTPUT + 1;
      if (Character.isLowSurrogate(output.charAt(from))) {
        from++; // never keep half of a character
      }
      output = "…" + output.substring(from);
    }
  }

  /** This record with {@code detail} in place of its own (cut as any detail is). */
  public ExecutionRecord withDetail(String detail) {
    return new ExecutionRecord(
        job,
        fireTime,
        node,
        fence,
        trigger,
        startedAt,
        finishedAt,
        outcome,
        exitCode,
        detail,
        output,
        attempt);
  }

  /** How long the run took on its node's wall clock (zero for a skip or a miss). */
  public Duration duration() {
    Duration d = Duration.between(startedAt, finishedAt);
    return d.isNegative() ? Duration.ZERO : d;
  }
}
