package dev.leasehold.core.job;

/**
 * What a {@link JobRunner} reports about the body it ran.
 *
 * @param outcome {@link Outcome#SUCCEEDED} or {@link Outcome#FAILED}; the scheduler overrides it
 *     with TIMED_OUT or LEASE_LOST when it had to stop the job
 * @param exitCode the process exit code or HTTP status, or {@code null}
 * @param detail a short error summary, or {@code null}
 */
public record JobResult(Outcome outcome, Integer exitCode, String detail) {

  public static JobResult succeeded() {
    return new JobResult(Outcome.SUCCEEDED, null, null);
  }

  public static JobResult failed(String detail) {
    return new JobResult(Outcome.FAILED, null, detail);
  }

  /** Success for code 0, failure otherwise. */
  public static JobResult exit(int code) {
    return code == 0
        ? new JobResult(Outcome.SUCCEEDED, 0, null)
        : new JobResult(Outcome.FAILED, code, "exit code " + code);
  }
}
