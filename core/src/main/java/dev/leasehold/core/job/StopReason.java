package dev.leasehold.core.job;

/** Why the scheduler asked a running job to stop. */
public enum StopReason {
  /** The lease could not be renewed: someone else may hold it now (G5). */
  LEASE_LOST,
  /** The job ran past its {@code timeout}. */
  TIMED_OUT,
  /** The daemon is shutting down and the shutdown grace ran out. */
  SHUTDOWN,
  /** The job's next firing came due and replaces this run ({@code overlap: replace}). */
  REPLACED
}
