package dev.leasehold.core.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.Optional;

/**
 * A cron expression read as wall-clock times in one zone.
 *
 * <p><b>The DST rule.</b> The expression picks local wall-clock times; each picked local time fires
 * once, at the instant {@link ZonedDateTime#ofLocal} gives it:
 *
 * <ul>
 *   <li>a local time that does not exist (inside a spring-forward gap) fires at the same distance
 *       past the gap: {@code 02:30} on a day that jumps from 02:00 to 03:00 fires at {@code 03:30}
 *       new time, so a daily 02:30 job still runs that day;
 *   <li>a local time that exists twice (inside a fall-back overlap) fires once, at its first
 *       occurrence (the earlier offset); the repeated hour does not fire again.
 * </ul>
 *
 * Several picked times that land on one instant are one firing. The cron library is only asked for
 * local times (in UTC, where there is no DST); the zone is applied here, so the rule does not
 * depend on how the library treats DST.
 */
public final class CronSchedule implements Schedule {
  private static final CronParser FIVE_FIELDS =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser SIX_FIELDS =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
  private static final Duration LOOK_AROUND = Duration.ofDays(2);

  private final String expression;
  private final ZoneId zone;
  private final ExecutionTime executionTime;

  private CronSchedule(String expression, ZoneId zone, ExecutionTime executionTime) {
    this.expression = expression;
    this.zone = zone;
    this.executionTime = executionTime;
  }

  static CronSchedule parse(String expression, ZoneId zone) {
    Objects.requireNonNull(zone, "zone");
    if (expression == null || expression.isBlank()) {
      throw new IllegalArgumentException("cron expression is empty");
    }
    String trimmed = expression.trim().replaceAll("\\s+", " ");
    int fields = trimmed.split(" ").length;
    CronParser parser =
        switch (fields) {
          case 5 -> FIVE_FIELDS;
          case 6 -> SIX_FIELDS;
          default ->
              throw new IllegalArgumentException(
                  "cron '"
                      + expression
                      + "' has "
                      + fields
                      + " fields; expected 5 (min hour dom month dow) or 6 (seconds first)");
        };
    Cron cron;
    try {
      cron = parser.parse(trimmed).validate();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cron '" + expression + "' is invalid: " + firstLine(e.getMessage()), e);
    }
    CronSchedule schedule = new CronSchedule(trimmed, zone, ExecutionTime.forCron(cron));
    // an expression such as "0 0 30 2 *" parses but never fires: say so now, not at run time
    if (schedule.nextAfter(Instant.EPOCH).isEmpty()
        && schedule.nextAfter(Instant.parse("2000-01-01T00:00:00Z")).isEmpty()) {
      throw new IllegalArgumentException("cron '" + expression + "' never fires");
    }
    return schedule;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable expression";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  public String expression() {
    return expression;
  }

  public ZoneId zone() {
    return zone;
  }

  @Override
  public Optional<Instant> nextAfter(Instant instant) {
    ZoneRules rules = zone.getRules();
    Duration shift = largestShiftAround(rules, instant);
    LocalDateTime local = LocalDateTime.ofInstant(instant, zone);
    // start early enough to see local times that a gap pushes past `instant`
    ZonedDateTime cursor = local.minus(shift).minusSeconds(1).atZone(ZoneOffset.UTC);
    Instant best = null;
    LocalDateTime stopAfter = null;
    for (int guard = 0; guard < 100_000; guard++) {
      Optional<ZonedDateTime> next = executionTime.nextExecution(cursor);
      if (next.isEmpty()) {
        break;
      }
      LocalDateTime candidate = next.get().toLocalDateTime();
      if (stopAfter != null && candidate.isAfter(stopAfter)) {
        break;
      }
      Instant firing = ZonedDateTime.ofLocal(candidate, zone, null).toInstant();
      if (firing.isAfter(instant) && (best == null || firing.isBefore(best))) {
        best = firing;
        // beyond this local time no candidate can map to an earlier instant
        stopAfter = LocalDateTime.ofInstant(best, zone).plus(shift);
      }
      cursor = next.get();
    }
    return Optional.ofNullable(best);
  }

  /** The largest offset change in the zone within a couple of days around {@code instant}. */
  private static Duration largestShiftAround(ZoneRules rules, Instant instant) {
    Duration largest = Duration.ZERO;
    Instant end = instant.plus(LOOK_AROUND);
    ZoneOffsetTransition t = rules.nextTransition(instant.minus(LOOK_AROUND));
    while (t != null && t.getInstant().isBefore(end)) {
      Duration d = t.getDuration().abs();
      if (d.compareTo(largest) > 0) {
        largest = d;
      }
      t = rules.nextTransition(t.getInstant());
    }
    return largest;
  }

  @Override
  public String describe() {
    return "cron \"" + expression + "\" " + zone.getId();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CronSchedule c && c.expression.equals(expression) && c.zone.equals(zone);
  }

  @Override
  public int hashCode() {
    return Objects.hash(expression, zone);
  }

  @Override
  public String toString() {
    return describe();
  }
}
