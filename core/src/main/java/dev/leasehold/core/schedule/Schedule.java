package dev.leasehold.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/**
 * When a job fires. Firing instants are a pure function of the schedule (never of "now" or of
 * process start), so every replica computes the same instants and a late replica claims the same
 * firing as everybody else (G2).
 */
public sealed interface Schedule
    permits CronSchedule,
        IntervalSchedule,
        OnceSchedule,
        JitteredSchedule,
        WindowedSchedule,
        AfterSchedule {

  /** The first firing strictly after {@code instant}, empty when there is none. */
  Optional<Instant> nextAfter(Instant instant);

  /**
   * The latest firing {@code f} with {@code from < f <= to}: the one firing that several missed
   * firings coalesce into (G9).
   */
  default Optional<Instant> latestIn(Instant from, Instant to) {
    Optional<Instant> latest = Optional.empty();
    Optional<Instant> next = nextAfter(from);
    while (next.isPresent() && !next.get().isAfter(to)) {
      latest = next;
      next = nextAfter(next.get());
    }
    return latest;
  }

  /** A short human form, e.g. {@code cron "30 6 * * *" Asia/Shanghai} or {@code every 1s}. */
  String describe();

  /**
   * A cron schedule: 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first,
   * read in {@code zone}. See {@link CronSchedule} for the DST rule.
   *
   * @throws IllegalArgumentException with a readable reason when the expression is invalid
   */
  static Schedule cron(String expression, ZoneId zone) {
    return CronSchedule.parse(expression, zone);
  }

  /** Every {@code interval}, aligned to the epoch plus {@code offset} (which may be zero). */
  static Schedule every(Duration interval, Duration offset) {
    return new IntervalSchedule(interval, offset);
  }

  /**
   * {@code base} with each firing moved later by a deterministic offset in {@code [0, bound)}
   * derived from {@code key} (the job's name) and the nominal firing; see {@link JitteredSchedule}.
   */
  static Schedule jittered(Schedule base, String key, Duration bound) {
    return new JitteredSchedule(base, key, bound);
  }

  /**
   * {@code base} without the firings before {@code start}, after {@code end} (either may be {@code
   * null}; both inclusive) and inside the windows of {@code exclusions}; see {@link
   * WindowedSchedule}.
   */
  static Schedule windowed(
      Schedule base, Instant start, Instant end, java.util.List<Exclusion> exclusions) {
    return new WindowedSchedule(base, start, end, exclusions);
  }

  /** Exactly once, at {@code instant}. */
  static Schedule at(Instant instant) {
    return new OnceSchedule(instant);
  }
}
