package dev.leasehold.core.schedule;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them in config: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  /**
   * Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d} and sums like {@code
   * 1h30m}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("expected a duration like 500ms, 30s, 5m or 1h");
    }
    String s = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = PART.matcher(s);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + text + "' is too large");
      }
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
      end = m.end();
    }
    if (end != s.length() || end == 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration; expected e.g. 500ms, 30s, 5m, 1h");
    }
    return total;
  }

  /**
   * A duration for people reading a log: {@code 340ms}, {@code 2.5s}, {@code 4m05s}, {@code 1h02m};
   * never ISO-8601 ({@code PT2.5S}).
   */
  public static String human(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      long tenths = Math.round(ms / 100.0);
      return tenths % 10 == 0 ? tenths / 10 + "s" : tenths / 10 + "." + tenths % 10 + "s";
    }
    long s = ms / 1000;
    if (s < 3600) {
      return String.format(java.util.Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(java.util.Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }

  /** The shortest exact form: {@code 1500ms}, {@code 30s}, {@code 5m}, {@code 2h}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms != 0 && ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
