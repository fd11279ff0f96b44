package dev.leasehold.core.scheduler;

import dev.leasehold.core.schedule.Durations;
import java.time.Duration;

/**
 * How often a scheduled firing whose run ended {@code failed} or {@code timed-out} is run again.
 *
 * @param attempts runs of one firing at most, the first included; 1 means no retry
 * @param backoff the pause after the first failed run, counted from its end; it doubles after each
 *     later failed run
 * @param maxBackoff the pause never grows past this
 */
public record RetryPolicy(int attempts, Duration backoff, Duration maxBackoff) {
  public static final Duration DEFAULT_BACKOFF = Duration.ofSeconds(30);
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofMinutes(10);

  /** One attempt: no retry. */
  public static final RetryPolicy NONE = new RetryPolicy(1, DEFAULT_BACKOFF, DEFAULT_MAX_BACKOFF);

  public RetryPolicy {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
    }
    if (backoff == null || backoff.toMillis() < 1) {
      throw new IllegalArgumentException("backoff must be at least 1ms, got " + show(backoff));
    }
    if (maxBackoff == null || maxBackoff.compareTo(backoff) < 0) {
      throw new IllegalArgumentException(
          "max-backoff must be at least the backoff ("
              + show(backoff)
              + "), got "
              + show(maxBackoff));
    }
  }

  /** Whether a firing may run more than once. */
  public boolean retries() {
    return attempts > 1;
  }

  /**
   * The pause after failed run {@code attempt} (1 for the first run): backoff, doubled for each
   * earlier failed run, at most max-backoff.
   */
  public Duration pauseAfter(int attempt) {
    Duration pause = backoff;
    for (int i = 1; i < attempt && pause.compareTo(maxBackoff) < 0; i++) {
      pause = pause.multipliedBy(2);
    }
    return pause.compareTo(maxBackoff) > 0 ? maxBackoff : pause;
  }

  private static String show(Duration d) {
    return d == null ? "nothing" : Durations.format(d);
  }
}
