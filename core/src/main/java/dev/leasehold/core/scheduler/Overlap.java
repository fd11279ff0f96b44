package dev.leasehold.core.scheduler;

import java.util.Locale;

/**
 * What a firing does when it comes due while a run of the same job holds the job's lease (anywhere
 * in the cluster).
 */
public enum Overlap {
  /** It does not run: given up once the clock-skew allowance passed (the default). */
  SKIP,
  /**
   * The first firing after the running one waits and is claimed as soon as the run ends (the
   * waiting replicas poll the lease every 100 ms), within its misfire grace; any other firing that
   * comes due while the run goes is given up as with {@link #SKIP}. Which firing may wait is a
   * function of the schedule and the lease's watermark (the running firing), so every replica
   * agrees on it and at most one waits.
   */
  BUFFER_ONE,
  /**
   * As {@link #BUFFER_ONE}, and the replica that holds the running run stops it when that first
   * firing comes due on its own timer (SIGTERM to a command's process group, SIGKILL after {@code
   * kill-grace}), records it {@code replaced} and releases the lease; the waiting firing is claimed
   * then, on any replica. No message passes between replicas: each knows the schedule.
   */
  REPLACE,
  /**
   * Each firing is claimed on the job's lease as always (the watermark makes it once), then its run
   * holds a run lease of its own ({@code dev.leasehold.core.lease.RunSeats}) and the job's lease is
   * released at once: runs of consecutive firings overlap, each firing still runs once.
   */
  ALLOW;

  /**
   * As the configuration writes it: {@code skip}, {@code buffer-one}, {@code replace}, {@code
   * allow}.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Whether one firing waits behind a running run: {@link #BUFFER_ONE} and {@link #REPLACE}. */
  boolean buffersOne() {
    return this == BUFFER_ONE || this == REPLACE;
  }
}
