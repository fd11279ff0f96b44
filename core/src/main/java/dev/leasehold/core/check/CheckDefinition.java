package dev.leasehold.core.check;

import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A heartbeat check: a job that runs elsewhere pings it once per period, and a ping that does not
 * come within the period plus {@code grace} is a {@code missed} event.
 *
 * @param name the check's name (a lease name: {@code [A-Za-z0-9._-]}, 1-100 characters)
 * @param every the period of an {@code every:} check, or {@code null} for a cron one
 * @param cron the schedule of a {@code cron:} check, or {@code null} for an every one
 * @param grace how much later than its period a ping may still come
 */
public record CheckDefinition(String name, Duration every, Schedule cron, Duration grace) {
  public CheckDefinition {
    LeaseNames.require(name);
    Objects.requireNonNull(grace, "grace");
    if ((every == null) == (cron == null)) {
      throw new IllegalArgumentException("a check has either a period or a cron schedule");
    }
    if (every != null && (every.isZero() || every.isNegative())) {
      throw new IllegalArgumentException("the period must be greater than 0");
    }
    if (grace.isNegative()) {
      throw new IllegalArgumentException("the grace must not be negative");
    }
  }

  /** An {@code every:} check. */
  public static CheckDefinition every(String name, Duration every, Duration grace) {
    return new CheckDefinition(name, every, null, grace);
  }

  /** A {@code cron:} check. */
  public static CheckDefinition cron(String name, Schedule cron, Duration grace) {
    return new CheckDefinition(name, null, cron, grace);
  }

  /**
   * The instant after which a ping at {@code ping} is overdue: {@code ping + every + grace}, or the
   * next cron time after the ping plus the grace; empty for a cron without a next time.
   */
  public Optional<Instant> deadlineAfter(Instant ping) {
    if (every != null) {
      return Optional.of(ping.plus(every).plus(grace));
    }
    return cron.nextAfter(ping).map(next -> next.plus(grace));
  }

  /** {@code every 1h} or {@code cron "0 3 * * *" UTC}, for status. */
  public String describe() {
    return every != null
        ? "every " + dev.leasehold.core.schedule.Durations.format(every)
        : cron.describe();
  }
}
