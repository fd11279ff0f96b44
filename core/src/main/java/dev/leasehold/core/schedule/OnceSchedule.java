package dev.leasehold.core.schedule;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/** Fires once, at one instant (millisecond precision). */
public record OnceSchedule(Instant at) implements Schedule {

  public OnceSchedule {
    at = Objects.requireNonNull(at, "at").truncatedTo(ChronoUnit.MILLIS);
  }

  @Override
  public Optional<Instant> nextAfter(Instant instant) {
    return at.isAfter(instant) ? Optional.of(at) : Optional.empty();
  }

  @Override
  public Optional<Instant> latestIn(Instant from, Instant to) {
    return at.isAfter(from) && !at.isAfter(to) ? Optional.of(at) : Optional.empty();
  }

  @Override
  public String describe() {
    return "at " + at;
  }
}
