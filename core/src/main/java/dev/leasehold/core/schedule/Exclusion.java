package dev.leasehold.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.MonthDay;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A window in which a job's firings do not run (see {@link WindowedSchedule}). Each kind answers
 * one question: when does the window that holds an instant end?
 */
public sealed interface Exclusion permits Exclusion.Between, Exclusion.Dates, Exclusion.Recurring {

  /**
   * The end (exclusive) of this exclusion's window that holds {@code instant}, or empty when the
   * instant is not excluded by it.
   */
  Optional<Instant> windowEnd(Instant instant);

  /** A short human form for {@code status}, e.g. {@code dates 2026-12-25, *-01-01}. */
  String describe();

  /** The instants {@code [from, to)} (millisecond precision). */
  record Between(Instant from, Instant to) implements Exclusion {
    public Between {
      from = Objects.requireNonNull(from, "from").truncatedTo(ChronoUnit.MILLIS);
      to = Objects.requireNonNull(to, "to").truncatedTo(ChronoUnit.MILLIS);
      if (!to.isAfter(from)) {
        throw new IllegalArgumentException("'to' " + to + " must be after 'from' " + from);
      }
    }

    @Override
    public Optional<Instant> windowEnd(Instant instant) {
      return !instant.isBefore(from) && instant.isBefore(to) ? Optional.of(to) : Optional.empty();
    }

    @Override
    public String describe() {
      return "from " + from + " to " + to;
    }
  }

  /**
   * Whole days in {@code zone}, from local midnight to the next (a day of 23 or 25 hours on a DST
   * change is still one whole day). A date is {@code 2026-12-25} or, every year, {@code *-01-01}.
   */
  record Dates(List<String> dates, ZoneId zone) implements Exclusion {
    /** Consecutive excluded days are one window; no window is longer than this. */
    private static final int LONGEST_RUN_OF_DAYS = 400;

    public Dates {
      dates = List.copyOf(dates);
      Objects.requireNonNull(zone, "zone");
      if (dates.isEmpty()) {
        throw new IllegalArgumentException("at least one date is needed");
      }
      for (String date : dates) {
        parse(date);
      }
    }

    /**
     * Checks one date: {@code YYYY-MM-DD} or {@code *-MM-DD}.
     *
     * @throws IllegalArgumentException naming the date when it is neither
     */
    public static void parse(String date) {
      try {
        if (date.startsWith("*-")) {
          MonthDay.parse("--" + date.substring(2));
        } else {
          LocalDate.parse(date);
        }
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "'" + date + "' is not a date; expected e.g. 2026-12-25, or *-01-01 for every year");
      }
    }

    boolean holds(LocalDate day) {
      for (String date : dates) {
        if (date.startsWith("*-")
            ? MonthDay.parse("--" + date.substring(2)).equals(MonthDay.from(day))
            : LocalDate.parse(date).equals(day)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public Optional<Instant> windowEnd(Instant instant) {
      LocalDate day = LocalDate.ofInstant(instant, zone);
      if (!holds(day)) {
        return Optional.empty();
      }
      LocalDate next = day.plusDays(1);
      for (int i = 0; i < LONGEST_RUN_OF_DAYS && holds(next); i++) {
        next = next.plusDays(1);
      }
      // the start of the day, as the zone has it (after a gap at midnight, when there is one)
      return Optional.of(next.atStartOfDay(zone).toInstant());
    }

    @Override
    public String describe() {
      return "dates " + String.join(", ", dates) + " " + zone.getId();
    }
  }

  /** A window of {@code length} from each firing of {@code starts} (a cron in the job's zone). */
  record Recurring(Schedule starts, Duration length) implements Exclusion {
    public Recurring {
      Objects.requireNonNull(starts, "starts");
      if (length == null || length.toMillis() < 1) {
        throw new IllegalArgumentException("'for' must be at least 1ms, got " + length);
      }
    }

    @Override
    public Optional<Instant> windowEnd(Instant instant) {
      // a window starting at s holds instant when s <= instant < s + length
      return starts.latestIn(instant.minus(length), instant).map(s -> s.plus(length));
    }

    @Override
    public String describe() {
      return starts.describe() + " for " + Durations.format(length);
    }
  }
}
