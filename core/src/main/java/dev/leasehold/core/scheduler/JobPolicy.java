package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.schedule.Durations;
import java.time.Duration;

/**
 * How one job holds its lease and when a late firing is still worth running.
 *
 * @param ttl lease time to live; a replica that dies holding the lease blocks nobody longer
 * @param renewEvery the watchdog renews the lease this often while the job runs (below ttl)
 * @param timeout the job is stopped after this long, or {@code null} for no limit
 * @param misfireGrace a firing that could not start on time (all replicas down, store unreachable,
 *     a paused process) still runs if it can start within this much of its scheduled instant; later
 *     it is dropped. Missed firings coalesce into the latest one.
 * @param retry how often a failed or timed-out scheduled run is run again ({@link
 *     RetryPolicy#NONE}: never)
 */
public record JobPolicy(
    Duration ttl,
    Duration renewEvery,
    Duration timeout,
    Duration misfireGrace,
    RetryPolicy retry,
    Overlap overlap) {
  public static final Duration DEFAULT_TTL = LeaseDefaults.TTL;
  public static final Duration DEFAULT_MISFIRE_GRACE = Duration.ofMinutes(1);

  /** A policy without retries. */
  public JobPolicy(Duration ttl, Duration renewEvery, Duration timeout, Duration misfireGrace) {
    this(ttl, renewEvery, timeout, misfireGrace, RetryPolicy.NONE);
  }

  /** A policy whose overlapping firings are skipped. */
  public JobPolicy(
      Duration ttl,
      Duration renewEvery,
      Duration timeout,
      Duration misfireGrace,
      RetryPolicy retry) {
    this(ttl, renewEvery, timeout, misfireGrace, retry, Overlap.SKIP);
  }

  public JobPolicy {
    if (retry == null) {
      retry = RetryPolicy.NONE;
    }
    if (overlap == null) {
      overlap = Overlap.SKIP;
    }
    if (ttl == null || ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1ms, got " + show(ttl));
    }
    if (renewEvery == null || renewEvery.toMillis() < 1) {
      throw new IllegalArgumentException(
          "renew-every must be at least 1ms, got " + show(renewEvery));
    }
    if (renewEvery.compareTo(ttl) >= 0) {
      throw new IllegalArgumentException(
          "renew-every ("
              + show(renewEvery)
              + ") must be less than ttl ("
              + show(ttl)
              + ") or the lease expires between renewals");
    }
    if (timeout != null && timeout.toMillis() < 1) {
      throw new IllegalArgumentException("timeout must be at least 1ms, got " + show(timeout));
    }
    if (misfireGrace == null || misfireGrace.isNegative()) {
      throw new IllegalArgumentException(
          "misfire-grace must be 0 or more, got " + show(misfireGrace));
    }
  }

  /** Fills the defaults: ttl 30s, renew-every ttl/3, no timeout, misfire-grace 1m. */
  public static JobPolicy of(
      Duration ttl, Duration renewEvery, Duration timeout, Duration misfireGrace) {
    Duration effectiveTtl = ttl == null ? DEFAULT_TTL : ttl;
    Duration effectiveRenew =
        renewEvery != null ? renewEvery : LeaseDefaults.renewEvery(effectiveTtl);
    return new JobPolicy(
        effectiveTtl,
        effectiveRenew,
        timeout,
        misfireGrace == null ? DEFAULT_MISFIRE_GRACE : misfireGrace);
  }

  /** This policy with {@code retry} ({@code null}: none). */
  public JobPolicy withRetry(RetryPolicy retry) {
    return new JobPolicy(ttl, renewEvery, timeout, misfireGrace, retry, overlap);
  }

  /** This policy with {@code overlap} ({@code null}: skip). */
  public JobPolicy withOverlap(Overlap overlap) {
    return new JobPolicy(ttl, renewEvery, timeout, misfireGrace, retry, overlap);
  }

  public static JobPolicy defaults() {
    return of(null, null, null, null);
  }

  private static String show(Duration d) {
    return d == null ? "nothing" : Durations.format(d);
  }
}
