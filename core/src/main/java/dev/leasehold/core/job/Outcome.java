package dev.leasehold.core.job;

/** How one execution attempt of a firing ended. */
public enum Outcome {
  SUCCEEDED,
  FAILED,
  TIMED_OUT,
  LEASE_LOST,
  /** The firing came while this node still ran the previous firing of the job (overlap). */
  SKIPPED;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
