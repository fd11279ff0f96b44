package dev.leasehold.app.runner;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The one textual form of instants handed to jobs and printed by the CLI: ISO-8601 UTC with exactly
 * three fraction digits, e.g. {@code 2026-11-30T06:30:00.000Z} ({@link Instant#toString()} drops
 * zero fractions, which scripts comparing strings would trip over).
 */
public final class FireTimes {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private FireTimes() {}

  public static String format(Instant instant) {
    return instant == null ? null : FORMAT.format(instant);
  }
}
