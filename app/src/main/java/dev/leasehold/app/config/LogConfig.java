package dev.leasehold.app.config;

/**
 * Logging settings.
 *
 * @param json flat JSON lines (JsonLineEncoder) instead of the readable pattern
 * @param level the root level: {@code TRACE}, {@code DEBUG}, {@code INFO}, {@code WARN}, {@code
 *     ERROR}
 */
public record LogConfig(boolean json, String level) {
  /** What a file without {@code log} (or with an empty one) gets: the keys' defaults. */
  public static final LogConfig DEFAULT =
      new LogConfig(
          ConfigKeys.FORMAT.defaultValue().equals("json"), ConfigKeys.LEVEL.defaultValue());
}
