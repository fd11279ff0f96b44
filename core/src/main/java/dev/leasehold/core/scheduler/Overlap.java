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
  BUFFER_ONE;

  /** As the configuration writes it: {@code skip}, {@code buffer-one}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
