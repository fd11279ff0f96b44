package dev.leasehold.core.scheduler;

import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Which past firings {@code leasehold backfill} may run: those the job's schedule can never run or
 * retry any more, so a backfilled run is never a second run of a scheduled firing.
 *
 * <p>A backfill runs a firing under the job's lease taken with {@code acquire}, which leaves the
 * watermark alone (a claim of a firing below the watermark is refused, and moving the watermark
 * forward would spend future firings). The schedule then keeps its own claims, so the rule must
 * keep the two apart: a firing {@code F} at or below the watermark {@code W} was claimed by the
 * schedule once and is never claimed again; its retries are claims of instants before {@code F}'s
 * next firing {@code N}, so once {@code N <= W}, or {@code N} is past the horizon, none can follow.
 * A firing above the watermark was never claimed (so never ran or retried); the schedule claims it
 * only within its misfire grace of the firing (its timers, a start's catch-up), so once it is past
 * the horizon nothing but a backfill runs it. The horizon is the job's misfire grace, the
 * clock-skew allowance and the lease's TTL.
 */
public final class BackfillRule {
  private BackfillRule() {}

  /** How far back a firing above the watermark must be before a backfill may run it. */
  public static Duration horizon(JobPolicy policy) {
    Duration grace = policy.misfireGrace() == null ? Duration.ZERO : policy.misfireGrace();
    return grace.plus(Scheduler.DEFAULT_SKEW_ALLOWANCE).plus(policy.ttl());
  }

  /**
   * Why a backfill may not run {@code firing} now, or empty when it may.
   *
   * @param watermark the job's watermark (the latest firing its schedule claimed), if any
   */
  public static Optional<String> refusal(
      Schedule schedule, JobPolicy policy, Instant firing, Instant watermark, Instant now) {
    Instant horizon = now.minus(horizon(policy));
    if (watermark == null || firing.isAfter(watermark)) {
      return firing.isBefore(horizon)
          ? Optional.empty()
          : Optional.of("the schedule may still claim it (too recent)");
    }
    Optional<Instant> next = schedule.nextAfter(firing);
    if (next.isEmpty()
        ? firing.isBefore(horizon)
        : !next.get().isAfter(watermark) || next.get().isBefore(horizon)) {
      return Optional.empty();
    }
    return Optional.of("the schedule may still retry it (its next firing is not claimed yet)");
  }
}
