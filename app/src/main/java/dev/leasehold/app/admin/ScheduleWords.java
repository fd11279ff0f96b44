package dev.leasehold.app.admin;

import com.cronutils.descriptor.CronDescriptor;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;
import dev.leasehold.core.schedule.CronSchedule;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.schedule.Exclusion;
import dev.leasehold.core.schedule.JitteredSchedule;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.schedule.WindowedSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/** A schedule in words for people ("at 06:30", "every 2s"), and its typical interval. */
final class ScheduleWords {
  private static final CronParser FIVE =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser SIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
  private static final CronDescriptor WORDS = CronDescriptor.instance(Locale.UK);

  private ScheduleWords() {}

  /** E.g. {@code at 06:30 (cron "30 6 * * *")}; the expression stays, words are a reading aid. */
  static String describe(Schedule schedule) {
    if (schedule instanceof WindowedSchedule windowed) {
      StringBuilder words = new StringBuilder(describe(windowed.base()));
      if (windowed.start() != null) {
        words.append(", from ").append(windowed.start());
      }
      if (windowed.end() != null) {
        words.append(", until ").append(windowed.end());
      }
      for (Exclusion exclusion : windowed.exclusions()) {
        words.append(", except ").append(exclusion.describe());
      }
      return words.toString();
    }
    if (schedule instanceof JitteredSchedule jittered) {
      return describe(jittered.base()) + ", jitter " + Durations.format(jittered.bound());
    }
    if (schedule instanceof CronSchedule cron) {
      String expression = cron.expression();
      try {
        CronParser parser = expression.split(" ").length == 6 ? SIX : FIVE;
        return WORDS.describe(parser.parse(expression)) + " (cron \"" + expression + "\")";
      } catch (RuntimeException e) {
        return "cron \"" + expression + "\"";
      }
    }
    return schedule.describe();
  }

  /** The schedule under any windows and jitter. */
  static Schedule base(Schedule schedule) {
    Schedule s = schedule instanceof WindowedSchedule windowed ? windowed.base() : schedule;
    return s instanceof JitteredSchedule jittered ? jittered.base() : s;
  }

  /**
   * The gap between the next two firings after {@code now}, for "no run in 2 × the interval"
   * alerts; empty for a one-off schedule.
   */
  static Optional<Duration> interval(Schedule jittered, Instant now) {
    Schedule schedule = base(jittered); // the nominal gap: a jittered one varies by the offsets
    Optional<Instant> next = schedule.nextAfter(now);
    if (next.isEmpty()) {
      return Optional.empty();
    }
    return schedule.nextAfter(next.get()).map(after -> Duration.between(next.get(), after));
  }
}
