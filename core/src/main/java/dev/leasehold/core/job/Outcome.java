package dev.leasehold.core.job;

/** How one execution attempt of a firing ended. */
public enum Outcome {
  SUCCEEDED,
  FAILED,
  TIMED_OUT,
  LEASE_LOST,
  /** The firing came while this node still ran the previous firing of the job (overlap). */
  SKIPPED,
  /**
   * No replica ran the firing within its misfire grace (its lease was held by a dead or paused
   * holder, or the store was unreachable); reported once, cluster-wide.
   */
  MISSED;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
