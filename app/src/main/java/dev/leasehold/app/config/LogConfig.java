package dev.leasehold.app.config;

/**
 * Logging settings.
 *
 * @param json flat JSON lines (JsonLineEncoder) instead of the readable pattern
 * @param level the root level: {@code TRACE}, {@code DEBUG}, {@code INFO}, {@code WARN}, {@code
 *     ERROR}
 */
public record LogConfig(boolean json, String level) {
  public static final LogConfig DEFAULT = new LogConfig(false, "INFO");
}
