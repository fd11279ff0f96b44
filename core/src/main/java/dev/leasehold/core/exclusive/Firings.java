package dev.leasehold.core.exclusive;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which firing a method called on a schedule is running for: the latest instant of its schedule at
 * or before the call, allowing the caller's scheduler to wake up to {@link #EARLY} before it. Every
 * replica computes the same instant from the same expression, whatever its clock says, so all of
 * them claim the same firing and the store's watermark lets one win.
 */
public final class Firings {
  /**
   * How early a scheduler may call and still count as this firing: timers run on the monotonic
   * clock and may wake a few milliseconds before the wall-clock instant they aimed at.
   */
  public static final Duration EARLY = Duration.ofMillis(250);

  private static final Duration LONGEST_GAP = Duration.ofDays(800);

  private Firings() {}

  /**
   * The latest firing {@code f <= now + EARLY}, empty when the schedule has none in the 800 days
   * before.
   *
   * @param nextAfter the schedule: the first firing strictly after an instant, empty when none
   */
  public static Optional<Instant> due(Function<Instant, Optional<Instant>> nextAfter, Instant now) {
    Instant to = now.plus(EARLY);
    for (Duration back = Duration.ofSeconds(1);
        back.compareTo(LONGEST_GAP) <= 0;
        back = back.multipliedBy(2)) {
      Optional<Instant> latest = Optional.empty();
      Optional<Instant> next = nextAfter.apply(to.minus(back));
      while (next.isPresent() && !next.get().isAfter(to)) {
        latest = next;
        next = nextAfter.apply(next.get());
      }
      if (latest.isPresent()) {
        return latest;
      }
    }
    return Optional.empty();
  }
}
