package dev.leasehold.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * Fires at {@code epoch + offset + k * interval} for every integer k, at millisecond precision.
 * Alignment to the epoch (not to process start) makes every replica compute the same instants. Time
 * zones do not matter: an interval is absolute time.
 */
public record IntervalSchedule(Duration interval, Duration offset) implements Schedule {

  public IntervalSchedule {
    Objects.requireNonNull(interval, "interval");
    offset = offset == null ? Duration.ZERO : offset;
    if (interval.toMillis() < 1) {
      throw new IllegalArgumentException("interval must be at least 1ms, got " + interval);
    }
    if (offset.isNegative() || offset.compareTo(interval) >= 0) {
      throw new IllegalArgumentException(
          "offset must be at least 0 and less than the interval " + interval + ", got " + offset);
    }
  }

  @Override
  public Optional<Instant> nextAfter(Instant instant) {
    long period = interval.toMillis();
    long shift = offset.toMillis();
    long t = instant.truncatedTo(ChronoUnit.MILLIS).toEpochMilli();
    long k = Math.floorDiv(t - shift, period) + 1;
    return Optional.of(Instant.ofEpochMilli(k * period + shift));
  }

  @Override
  public Optional<Instant> latestIn(Instant from, Instant to) {
    long period = interval.toMillis();
    long shift = offset.toMillis();
    long k = Math.floorDiv(to.truncatedTo(ChronoUnit.MILLIS).toEpochMilli() - shift, period);
    Instant latest = Instant.ofEpochMilli(k * period + shift);
    return latest.isAfter(from) ? Optional.of(latest) : Optional.empty();
  }

  @Override
  public String describe() {
    return "every "
        + Durations.format(interval)
        + (offset.isZero() ? "" : " offset " + Durations.format(offset));
  }
}
