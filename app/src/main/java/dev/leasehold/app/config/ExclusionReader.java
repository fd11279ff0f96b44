package dev.leasehold.app.config;

import dev.leasehold.app.config.ConfigKeys.Key;
import dev.leasehold.core.schedule.Exclusion;
import dev.leasehold.core.schedule.Schedule;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads exclusion windows: the items of a job's {@code exclude} and of the top-level {@code
 * calendars}. An item is read once, where it is written; what depends on the job (its zone) is
 * applied when a job names it, so one calendar serves jobs in different zones.
 */
final class ExclusionReader {
  /** The longest all-day event of an iCalendar file that is read, in days. */
  private static final int LONGEST_EVENT_DAYS = 400;

  /** One item, read and checked, waiting for a job's zone. */
  @FunctionalInterface
  interface Window {
    List<Exclusion> in(ZoneId zone);
  }

  private final Map<String, List<Window>> calendars;

  private ExclusionReader(Map<String, List<Window>> calendars) {
    this.calendars = calendars;
  }

  /** No calendars. */
  static ExclusionReader none() {
    return new ExclusionReader(Map.of());
  }

  /** The top-level {@code calendars} of {@code root}, read and checked. */
  static ExclusionReader calendars(Section root, ConfigErrors errors) throws ConfigException {
    Map<String, List<Window>> calendars = new LinkedHashMap<>();
    Optional<Section> section = root.section(ConfigKeys.TOP_CALENDARS);
    if (section.isPresent()) {
      for (String name : section.get().keys()) {
        List<Window> windows = new ArrayList<>();
        try {
          for (Section.Item item : section.get().memberList(name)) {
            if (item.section() == null) {
              throw section
                  .get()
                  .errorAt(
                      name + item.path().substring(item.path().lastIndexOf('[')),
                      "expected a window ({from, to}, {dates}, {cron, for} or {ics}), not a name");
            }
            errors.collect(() -> windows.add(window(item.section(), true)));
          }
        } catch (ConfigException e) {
          errors.add(e);
        }
        calendars.put(name, windows);
      }
    }
    return new ExclusionReader(calendars);
  }

  /** A job's {@code exclude}, in the job's zone. */
  List<Exclusion> exclusions(Section job, ZoneId zone) throws ConfigException {
    List<Exclusion> out = new ArrayList<>();
    for (Section.Item item : job.items(ConfigKeys.JOB_EXCLUDE)) {
      if (item.section() != null) {
        out.addAll(window(item.section(), false).in(zone));
        continue;
      }
      List<Window> calendar = calendars.get(item.name().strip());
      if (calendar == null) {
        throw new ConfigException(
            job.file(),
            item.path(),
            "no calendar '"
                + item.name()
                + "' under the top-level "
                + ConfigKeys.TOP_CALENDARS.name()
                + (calendars.isEmpty() ? "" : "; known: " + String.join(", ", calendars.keySet())));
      }
      for (Window window : calendar) {
        out.addAll(window.in(zone));
      }
    }
    return out;
  }

  private static Window window(Section s, boolean inCalendar) throws ConfigException {
    s.allow(ConfigKeys.EXCLUSION);
    List<Key<?>> forms = ConfigKeys.EXCLUSION_FORMS.stream().filter(s::has).toList();
    if (forms.size() != 1) {
      throw s.error(
          (forms.isEmpty() ? "no window" : "two windows (" + names(forms) + ")")
              + "; give one of {from, to}, {dates}, {cron, for}"
              + (inCalendar ? ", {ics}" : " or a calendar's name"));
    }
    Key<?> form = forms.get(0);
    if (form == ConfigKeys.EXCLUDE_FROM) {
      only(s, ConfigKeys.EXCLUDE_FROM, ConfigKeys.EXCLUDE_TO);
      String from = s.requiredText(ConfigKeys.EXCLUDE_FROM);
      String to = s.requiredText(ConfigKeys.EXCLUDE_TO);
      // checked now in UTC: a local time is read in the job's zone when a job names it
      between(s, from, to, ZoneOffset.UTC);
      return zone -> List.of(uncheckedBetween(from, to, zone));
    }
    if (form == ConfigKeys.EXCLUDE_DATES) {
      only(s, ConfigKeys.EXCLUDE_DATES);
      List<String> dates =
          s.textList(ConfigKeys.EXCLUDE_DATES)
              .orElseThrow(() -> s.error(ConfigKeys.EXCLUDE_DATES, "expected a list of dates"));
      if (dates.isEmpty()) {
        throw s.error(ConfigKeys.EXCLUDE_DATES, "expected at least one date");
      }
      List<String> stripped = new ArrayList<>();
      for (int i = 0; i < dates.size(); i++) {
        String date = dates.get(i).strip();
        try {
          Exclusion.Dates.parse(date);
        } catch (IllegalArgumentException e) {
          throw s.errorAt(ConfigKeys.EXCLUDE_DATES.name() + "[" + i + "]", e.getMessage());
        }
        stripped.add(date);
      }
      return zone -> List.of(new Exclusion.Dates(stripped, zone));
    }
    if (form == ConfigKeys.EXCLUDE_CRON) {
      only(s, ConfigKeys.EXCLUDE_CRON, ConfigKeys.EXCLUDE_FOR);
      String cron = s.requiredText(ConfigKeys.EXCLUDE_CRON);
      Duration length =
          s.get(ConfigKeys.EXCLUDE_FOR)
              .orElseThrow(
                  () -> s.error(ConfigKeys.EXCLUDE_FOR, "is required with cron, e.g. for: 2h"));
      try {
        Schedule.cron(cron, ZoneOffset.UTC);
      } catch (IllegalArgumentException e) {
        throw s.error(ConfigKeys.EXCLUDE_CRON, e.getMessage());
      }
      return zone -> List.of(new Exclusion.Recurring(Schedule.cron(cron, zone), length));
    }
    if (!inCalendar) {
      throw s.error(
          ConfigKeys.EXCLUDE_ICS,
          "is read in a calendar only: put it under the top-level "
              + ConfigKeys.TOP_CALENDARS.name()
              + " and name the calendar here");
    }
    only(s, ConfigKeys.EXCLUDE_ICS);
    Path file = Path.of(s.requiredText(ConfigKeys.EXCLUDE_ICS).strip());
    List<IcsReader.Event> events;
    try {
      events = IcsReader.read(file);
    } catch (IllegalArgumentException | DateTimeException e) {
      throw s.error(ConfigKeys.EXCLUDE_ICS, e.getMessage());
    }
    return zone -> ics(events, zone);
  }

  private static List<Exclusion> ics(List<IcsReader.Event> events, ZoneId zone) {
    List<Exclusion> out = new ArrayList<>();
    List<String> days = new ArrayList<>();
    for (IcsReader.Event event : events) {
      if (event instanceof IcsReader.AllDay allDay) {
        if (allDay.yearly()) {
          days.add("*-" + allDay.first().toString().substring(5));
          continue;
        }
        LocalDate day = allDay.first();
        for (int i = 0; i < LONGEST_EVENT_DAYS && day.isBefore(allDay.end()); i++) {
          days.add(day.toString());
          day = day.plusDays(1);
        }
      } else if (event instanceof IcsReader.Timed timed) {
        ZoneId in = timed.zone() == null ? zone : timed.zone();
        out.add(
            new Exclusion.Between(
                timed.start().atZone(in).toInstant(), timed.end().atZone(in).toInstant()));
      }
    }
    if (!days.isEmpty()) {
      out.add(new Exclusion.Dates(days, zone));
    }
    return out;
  }

  /** Refuses any key of {@code s} but {@code keys}. */
  private static void only(Section s, Key<?>... keys) throws ConfigException {
    List<Key<?>> allowed = List.of(keys);
    for (Key<?> key : ConfigKeys.EXCLUSION) {
      if (s.has(key) && !allowed.contains(key)) {
        throw s.error(key, "does not go with " + keys[0].name());
      }
    }
  }

  private static void between(Section s, String from, String to, ZoneId zone)
      throws ConfigException {
    Instant start = instant(s, ConfigKeys.EXCLUDE_FROM, from, zone);
    Instant end = instant(s, ConfigKeys.EXCLUDE_TO, to, zone);
    if (!end.isAfter(start)) {
      throw s.error(ConfigKeys.EXCLUDE_TO, "must be after from (" + from.strip() + ")");
    }
  }

  private static Exclusion uncheckedBetween(String from, String to, ZoneId zone) {
    return new Exclusion.Between(parse(from, zone), parse(to, zone));
  }

  /**
   * An instant written with an offset ({@code 2026-11-30T06:30:00+08:00}) or without one, in {@code
   * zone}: the form of {@code at}, {@code start}, {@code end}, {@code from} and {@code to}.
   */
  static Instant instant(Section s, Key<?> key, String text, ZoneId zone) throws ConfigException {
    try {
      return parse(text, zone);
    } catch (DateTimeException e) {
      throw s.error(
          key,
          "'" + text.strip() + "' is not a date-time; expected e.g. 2026-11-30T06:30:00+08:00");
    }
  }

  private static Instant parse(String text, ZoneId zone) {
    String t = text.strip();
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeException e) {
      return LocalDateTime.parse(t).atZone(zone).toInstant();
    }
  }

  private static String names(List<Key<?>> keys) {
    return String.join(" and ", ConfigKeys.names(keys));
  }
}
