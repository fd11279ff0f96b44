package dev.leasehold.app.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small reader of the events of an iCalendar file (RFC 5545), enough for holiday and maintenance
 * calendars: no parser library is among the dependencies this build may use, and one calendar's
 * worth of lines does not need one. It reads each {@code VEVENT}'s {@code DTSTART} and its end
 * ({@code DTEND}, or {@code DURATION}; an all-day event without either lasts its day), unfolding
 * continued lines first. Cancelled events ({@code STATUS:CANCELLED}) are left out.
 *
 * <ul>
 *   <li>All-day events ({@code VALUE=DATE} or an 8-digit date) are whole days in the job's zone.
 *   <li>Timed events are read in their {@code TZID}, in UTC when they end in {@code Z}, else
 *       (floating times) in the job's zone.
 *   <li>The one repetition read is a yearly all-day day ({@code RRULE:FREQ=YEARLY} and nothing
 *       else), as holiday calendars write fixed holidays; any other {@code RRULE}, and {@code
 *       RDATE}, are refused with the line they are on, so that no window is silently missed.
 * </ul>
 */
final class IcsReader {
  private static final DateTimeFormatter DATE = DateTimeFormatter.BASIC_ISO_DATE;
  private static final DateTimeFormatter DATE_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss", Locale.ROOT);

  private IcsReader() {}

  /** One event of the file. */
  sealed interface Event {}

  /** Whole days {@code [first, end)}; {@code yearly} repeats the one day every year. */
  record AllDay(LocalDate first, LocalDate end, boolean yearly) implements Event {}

  /** {@code [start, end)} in {@code zone}, or in the job's zone when {@code zone} is null. */
  record Timed(LocalDateTime start, LocalDateTime end, ZoneId zone) implements Event {}

  /**
   * The events of {@code file}.
   *
   * @throws IllegalArgumentException naming the file (and line) when it cannot be read as above
   */
  static List<Event> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    List<Event> events = new ArrayList<>();
    List<String[]> event = null; // [line number, unfolded line]
    List<String[]> unfolded = unfold(lines);
    for (String[] numbered : unfolded) {
      String line = numbered[1];
      if (line.equalsIgnoreCase("BEGIN:VEVENT")) {
        event = new ArrayList<>();
      } else if (line.equalsIgnoreCase("END:VEVENT") && event != null) {
        Event e = event(file, event);
        if (e != null) {
          events.add(e);
        }
        event = null;
      } else if (event != null) {
        event.add(numbered);
      }
    }
    if (unfolded.stream().noneMatch(l -> l[1].equalsIgnoreCase("BEGIN:VCALENDAR"))) {
      throw new IllegalArgumentException(file + " is not an iCalendar file (no BEGIN:VCALENDAR)");
    }
    return events;
  }

  private static List<String[]> unfold(List<String> lines) {
    List<String[]> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if ((line.startsWith(" ") || line.startsWith("\t")) && !out.isEmpty()) {
        String[] last = out.get(out.size() - 1);
        last[1] = last[1] + line.substring(1);
      } else if (!line.isBlank()) {
        out.add(new String[] {String.valueOf(i + 1), line.strip()});
      }
    }
    return out;
  }

  private static Event event(Path file, List<String[]> lines) {
    String[] start = null;
    String[] end = null;
    String[] duration = null;
    boolean yearly = false;
    for (String[] numbered : lines) {
      String line = numbered[1];
      String name = name(line);
      switch (name) {
        case "DTSTART" -> start = numbered;
        case "DTEND" -> end = numbered;
        case "DURATION" -> duration = numbered;
        case "STATUS" -> {
          if (value(line).equalsIgnoreCase("CANCELLED")) {
            return null;
          }
        }
        case "RRULE" -> {
          if (!value(line).equalsIgnoreCase("FREQ=YEARLY")) {
            throw refused(file, numbered, "only RRULE:FREQ=YEARLY (a yearly all-day day) is read");
          }
          yearly = true;
        }
        case "RDATE" -> throw refused(file, numbered, "RDATE is not read");
        default -> {}
      }
    }
    if (start == null) {
      throw new IllegalArgumentException(file + ": an event has no DTSTART");
    }
    try {
      if (isDate(start[1])) {
        LocalDate first = LocalDate.parse(value(start[1]), DATE);
        LocalDate last = first.plusDays(1);
        if (end != null) {
          last = LocalDate.parse(value(end[1]), DATE);
        } else if (duration != null) {
          last = first.plusDays(Duration.parse(value(duration[1])).toDays());
        }
        if (yearly && !last.equals(first.plusDays(1))) {
          throw refused(file, start, "a yearly event is read only when it lasts one day");
        }
        return last.isAfter(first) ? new AllDay(first, last, yearly) : null;
      }
      if (yearly) {
        throw refused(file, start, "a yearly event is read only when it is all-day");
      }
      ZoneId zone = zone(start[1]);
      LocalDateTime from = dateTime(value(start[1]));
      LocalDateTime to;
      if (end != null) {
        to = dateTime(value(end[1]));
        ZoneId endZone = zone(end[1]);
        if (endZone != null && zone != null && !endZone.equals(zone)) {
          to = to.atZone(endZone).withZoneSameInstant(zone).toLocalDateTime();
        }
      } else if (duration != null) {
        to = from.plus(Duration.parse(value(duration[1])));
      } else {
        return null; // an instant, not a window
      }
      return to.isAfter(from) ? new Timed(from, to, zone) : null;
    } catch (DateTimeException e) {
      throw refused(file, start, "unreadable date or time: " + e.getMessage());
    }
  }

  private static IllegalArgumentException refused(Path file, String[] line, String why) {
    return new IllegalArgumentException(file + " line " + line[0] + ": " + why);
  }

  /** The property name: before the first ';' or ':'. */
  private static String name(String line) {
    int end = line.length();
    for (int i = 0; i < line.length(); i++) {
      if (line.charAt(i) == ';' || line.charAt(i) == ':') {
        end = i;
        break;
      }
    }
    return line.substring(0, end).toUpperCase(Locale.ROOT);
  }

  private static String value(String line) {
    int colon = line.indexOf(':');
    return colon < 0 ? "" : line.substring(colon + 1).strip();
  }

  private static String parameters(String line) {
    int colon = line.indexOf(':');
    return colon < 0 ? "" : line.substring(0, colon).toUpperCase(Locale.ROOT);
  }

  private static boolean isDate(String line) {
    return parameters(line).contains("VALUE=DATE") && !parameters(line).contains("VALUE=DATE-TIME")
        || value(line).matches("[0-9]{8}");
  }

  /** The TZID parameter, UTC for a time ending in Z, null for a floating time. */
  private static ZoneId zone(String line) {
    if (value(line).endsWith("Z") || value(line).endsWith("z")) {
      return ZoneOffset.UTC;
    }
    int at = line.toUpperCase(Locale.ROOT).indexOf("TZID=");
    int colon = line.indexOf(':');
    if (at < 0 || at > colon) {
      return null;
    }
    String id = line.substring(at + 5, colon);
    int semicolon = id.indexOf(';');
    if (semicolon >= 0) {
      id = id.substring(0, semicolon);
    }
    return ZoneId.of(id.replace("\"", ""));
  }

  private static LocalDateTime dateTime(String text) {
    String t =
        text.endsWith("Z") || text.endsWith("z") ? text.substring(0, text.length() - 1) : text;
    return LocalDateTime.parse(t, DATE_TIME);
  }
}
