package dev.leasehold.core.schedule;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Another schedule's firings bounded by {@code start} and {@code end} (both inclusive, either may
 * be {@code null}) and without the firings inside any of the {@code exclusions}' windows. Those
 * firings do not exist for the scheduler: they are never claimed, never recorded as missed, never
 * caught up, and {@code status} shows the next firing after them, because the scheduler, the
 * missed-firing detection and {@code status} all ask this schedule.
 *
 * <p>Finding the next firing jumps over a whole window at a time (the first firing at or after the
 * window's end), so a long window over a frequent job costs one step, not one per firing in it. A
 * schedule whose firings are all excluded for {@value #MOST_WINDOWS} windows in a row is treated as
 * having no next firing.
 */
public record WindowedSchedule(
    Schedule base, Instant start, Instant end, List<Exclusion> exclusions) implements Schedule {

  /** How many windows in a row one search jumps over at most. */
  static final int MOST_WINDOWS = 10_000;

  public WindowedSchedule {
    Objects.requireNonNull(base, "base");
    exclusions = List.copyOf(exclusions);
    start = start == null ? null : start.truncatedTo(ChronoUnit.MILLIS);
    end = end == null ? null : end.truncatedTo(ChronoUnit.MILLIS);
    if (base instanceof WindowedSchedule) {
      throw new IllegalArgumentException("a schedule is windowed once");
    }
    if (start != null && end != null && end.isBefore(start)) {
      throw new IllegalArgumentException("end " + end + " is before start " + start);
    }
  }

  @Override
  public Optional<Instant> nextAfter(Instant instant) {
    Instant cursor = instant;
    if (start != null && cursor.isBefore(start)) {
      cursor = start.minusNanos(1); // start itself may be a firing
    }
    for (int i = 0; i < MOST_WINDOWS; i++) {
      Optional<Instant> next = base.nextAfter(cursor);
      if (next.isEmpty() || (end != null && next.get().isAfter(end))) {
        return Optional.empty();
      }
      Optional<Instant> windowEnd = excludedUntil(next.get());
      if (windowEnd.isEmpty()) {
        return next;
      }
      // the first firing at or after the window's end comes next
      cursor = windowEnd.get().minusNanos(1);
    }
    return Optional.empty();
  }

  /** The latest end of the windows holding {@code firing}; empty when none holds it. */
  public Optional<Instant> excludedUntil(Instant firing) {
    Instant until = null;
    for (Exclusion exclusion : exclusions) {
      Optional<Instant> end = exclusion.windowEnd(firing);
      if (end.isPresent() && (until == null || end.get().isAfter(until))) {
        until = end.get();
      }
    }
    return Optional.ofNullable(until);
  }

  @Override
  public String describe() {
    List<String> parts = new ArrayList<>();
    parts.add(base.describe());
    if (start != null) {
      parts.add("start " + start);
    }
    if (end != null) {
      parts.add("end " + end);
    }
    if (!exclusions.isEmpty()) {
      parts.add(exclusions.size() + " exclusion" + (exclusions.size() == 1 ? "" : "s"));
    }
    return String.join(", ", parts);
  }
}
