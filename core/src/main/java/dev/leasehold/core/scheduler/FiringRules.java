package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The firing arithmetic, each rule written once: when a firing is missed, which firings a late
 * timer or a start-up claims (catch-up and coalescing, bounded by the clock-skew horizon), whether
 * a store retry is still worth it, and the backoff steps. Pure functions of their arguments: no
 * clock is read here, so every rule is tested by tables without threads ({@code FiringRulesTest}).
 */
final class FiringRules {

  /** Lateness of a timer that still counts as on time, even with a misfire grace of 0. */
  static final Duration TIMER_TOLERANCE = Duration.ofSeconds(1);

  /** Longest pause between two claim attempts against an unreachable store. */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final Duration skewAllowance;

  /**
   * @param skewAllowance how far replicas' clocks may run ahead of each other
   */
  FiringRules(Duration skewAllowance) {
    if (skewAllowance == null || skewAllowance.isNegative()) {
      throw new IllegalArgumentException("clock skew allowance must be 0 or more");
    }
    this.skewAllowance = skewAllowance;
  }

  Duration skewAllowance() {
    return skewAllowance;
  }

  /** How late a firing of a job with this misfire grace may still start. */
  static Duration grace(Duration misfireGrace) {
    return misfireGrace.plus(TIMER_TOLERANCE);
  }

  /** A firing more than its grace old at {@code now} is missed: nobody may start it any more. */
  /**
   * Whether {@code firing} of {@code job} may wait behind the run of firing {@code behind} (the
   * running firing: the lease's watermark, or this node's own run) rather than be given up: the job
   * buffers one ({@link Overlap#BUFFER_ONE}, {@link Overlap#REPLACE}), {@code firing} is the first
   * firing after {@code behind}, and it is still within its misfire grace. Every replica computes
   * the same answer from the schedule, so at most one firing waits behind a run. A job that allows
   * overlaps ({@link Overlap#ALLOW}) holds its lease only between a claim and its run's own lease:
   * any firing in its grace waits for it.
   */
  static boolean buffered(JobDefinition job, Instant firing, Instant behind, Instant now) {
    if (job.policy().overlap() == Overlap.ALLOW) {
      return !isMissed(job.policy().misfireGrace(), firing, now);
    }
    return job.policy().overlap().buffersOne()
        && behind != null
        && firing.isAfter(behind)
        && !isMissed(job.policy().misfireGrace(), firing, now)
        && job.schedule().nextAfter(behind).filter(firing::equals).isPresent();
  }

  static boolean isMissed(Duration misfireGrace, Instant firing, Instant now) {
    return Duration.between(firing, now).compareTo(grace(misfireGrace)) > 0;
  }

  /**
   * A firing older than the skew allowance cannot be early on this clock any more: it is due on
   * every replica's clock. A firing younger than that waits (behind a run, for a busy lease); an
   * older one that could not be claimed is given up.
   */
  boolean olderThanSkew(Instant firing, Instant now) {
    return Duration.between(firing, now).compareTo(skewAllowance) > 0;
  }

  /**
   * The skew horizon: firings after it may not be due yet on replicas whose clocks run behind this
   * one, so they are claimed one by one and never coalesced past.
   */
  Instant horizon(Instant now) {
    return now.minus(skewAllowance);
  }

  /** Whether a firing after the horizon is due by {@code now}. */
  boolean newerFiringDue(Schedule schedule, Instant now) {
    return schedule.nextAfter(horizon(now)).map(f -> !f.isAfter(now)).orElse(false);
  }

  /**
   * G9 at start-up: the latest firing within the grace, which may have been missed while every
   * replica was down (the watermark refuses it if someone ran it); none when a firing after the
   * horizon is due already, since those are claimed one by one by the timer.
   */
  Optional<Instant> catchUp(Schedule schedule, Duration misfireGrace, Instant now) {
    if (newerFiringDue(schedule, now)) {
      return Optional.empty();
    }
    return schedule.latestIn(now.minus(grace(misfireGrace)), horizon(now));
  }

  /**
   * The firing a late timer for {@code firing} claims, or empty when younger firings are due and
   * this one coalesces into them. Firings after the horizon are never coalesced: on a replica whose
   * clock runs ahead they may not be due yet on the others' clocks, and claiming a later one first
   * would move the watermark past a firing nobody has run. Older firings coalesce into the latest
   * one before the horizon.
   */
  Optional<Instant> coalesce(Schedule schedule, Instant firing, Instant now) {
    Instant horizon = horizon(now);
    if (firing.isAfter(horizon)) {
      return Optional.of(firing);
    }
    if (newerFiringDue(schedule, now)) {
      return Optional.empty();
    }
    return Optional.of(schedule.latestIn(firing.minusMillis(1), horizon).orElse(firing));
  }

  /**
   * G8: whether a claim retried at {@code retryAt} is still worth waiting for: the firing is still
   * in its grace then, or a newer firing is due by then (the retry claims that one instead).
   */
  static boolean worthRetrying(
      Schedule schedule, Duration misfireGrace, Instant firing, Instant retryAt) {
    return !isMissed(misfireGrace, firing, retryAt)
        || schedule.nextAfter(firing).map(n -> !n.isAfter(retryAt)).orElse(false);
  }

  /**
   * The pause before undecided reports of unrun firings are claimed again: about as long as a dead
   * holder's lease can still last (its TTL), between 1 s and {@link #MAX_BACKOFF}.
   */
  static Duration reportPause(Duration ttl) {
    Duration min = Duration.ofSeconds(1);
    return ttl.compareTo(min) < 0 ? min : ttl.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : ttl;
  }

  /** The pause before claim attempt {@code attempt + 1}: 0.5 s, 1 s, 2 s … capped at 30 s. */
  static Duration backoff(int attempt) {
    long millis = 500L << Math.min(Math.max(attempt, 1) - 1, 10);
    return millis >= MAX_BACKOFF.toMillis() ? MAX_BACKOFF : Duration.ofMillis(millis);
  }

  /**
   * What the end of a run means for its firing: a retry at {@link #retryAt}, or none (then this row
   * is the firing's last). {@code dropped} says why a retry the policy allowed does not happen.
   */
  record AfterRun(Instant retryAt, String dropped) {
    static final AfterRun FINAL = new AfterRun(null, null);

    boolean retrying() {
      return retryAt != null;
    }
  }

  /** Only a run that ended {@code failed} or {@code timed-out} is retried. */
  static boolean retried(Outcome outcome) {
    return outcome == Outcome.FAILED || outcome == Outcome.TIMED_OUT;
  }

  /**
   * The retry of a scheduled run that ended in {@code row}: its claim instant is the row's end (at
   * millisecond precision, as every store keeps it) plus the pause for the row's attempt. A
   * function of the row alone, so every replica that reads the row computes the same instant, and
   * the store's watermark lets exactly one claim of it win. The next scheduled firing wins over a
   * retry not due at least the skew allowance before it: that retry is dropped, so a retry's claim
   * never races the next firing's.
   */
  AfterRun afterRun(RetryPolicy retry, Schedule schedule, ExecutionRecord row) {
    if (row.trigger() != TriggerKind.SCHEDULED
        || !retried(row.outcome())
        || row.attempt() >= retry.attempts()) {
      return AfterRun.FINAL;
    }
    Instant at =
        row.finishedAt().truncatedTo(ChronoUnit.MILLIS).plus(retry.pauseAfter(row.attempt()));
    Optional<Instant> next = schedule.nextAfter(row.fireTime());
    if (next.isPresent() && !at.plus(skewAllowance).isBefore(next.get())) {
      return new AfterRun(null, "the next firing " + next.get() + " comes first");
    }
    return new AfterRun(at, null);
  }
}
