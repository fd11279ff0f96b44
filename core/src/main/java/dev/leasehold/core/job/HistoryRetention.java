package dev.leasehold.core.job;

import java.time.Duration;
import java.time.Instant;

/**
 * What the history keeps ({@code store.history}): records written within {@link #keep} of now, and
 * of those at most the newest {@link #maxPerJob} of each job. Both bound it: with the defaults a
 * job keeps at most 1000 records, and none older than 30 days.
 *
 * @param keep how long a record is kept after it was written
 * @param maxPerJob how many records of one job are kept at most
 */
public record HistoryRetention(Duration keep, int maxPerJob) {
  /** The shortest {@code keep}: a record must outlive the run that reads it back. */
  public static final Duration MIN_KEEP = Duration.ofMinutes(1);

  public static final Duration DEFAULT_KEEP = Duration.ofDays(30);
  public static final int DEFAULT_MAX_PER_JOB = 1000;
  public static final HistoryRetention DEFAULT =
      new HistoryRetention(DEFAULT_KEEP, DEFAULT_MAX_PER_JOB);

  public HistoryRetention {
    if (keep == null || keep.compareTo(MIN_KEEP) < 0) {
      throw new IllegalArgumentException("keep must be at least 1m, got " + keep);
    }
    if (maxPerJob < 1) {
      throw new IllegalArgumentException("max-per-job must be at least 1, got " + maxPerJob);
    }
  }

  /** Records written before this instant are no longer kept. */
  public Instant cutoff(Instant now) {
    return now.minus(keep);
  }
}
