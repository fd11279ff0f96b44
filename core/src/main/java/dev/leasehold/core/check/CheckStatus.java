package dev.leasehold.core.check;

import java.time.Instant;

/**
 * A check as {@code status} shows it.
 *
 * @param name the check
 * @param schedule {@code every 1h}, or the cron schedule
 * @param state {@code new} (never pinged), {@code up}, {@code failed} (its last ping was a
 *     failure), {@code missed} (its deadline passed without a ping), or {@code unknown} (the store
 *     could not be read)
 * @param lastPing the newest ping's time, or {@code null}
 * @param nextDeadline when the check is overdue without another ping, or {@code null}
 */
public record CheckStatus(
    String name, String schedule, String state, Instant lastPing, Instant nextDeadline) {
  public static final String NEW = "new";
  public static final String UP = "up";
  public static final String FAILED = "failed";
  public static final String MISSED = "missed";
  public static final String UNKNOWN = "unknown";
}
