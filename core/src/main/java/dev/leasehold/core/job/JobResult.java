package dev.leasehold.core.job;

/**
 * What a {@link JobRunner} reports about the body it ran.
 *
 * @param outcome {@link Outcome#SUCCEEDED} or {@link Outcome#FAILED}, or {@link Outcome#LEASE_LOST}
 *     when the runner learned by itself that the job was stopped at its lease's deadline; the
 *     scheduler overrides it with TIMED_OUT or LEASE_LOST when it had to stop the job
 * @param exitCode the process exit code or HTTP status, or {@code null}
 * @param detail a short error summary, or {@code null}
 * @param output what the body said, as it goes to the history ({@link ExecutionRecord#output}):
 *     already scrubbed of secrets; {@code null} when there is none
 */
public record JobResult(Outcome outcome, Integer exitCode, String detail, String output) {

  /** A result without output. */
  public JobResult(Outcome outcome, Integer exitCode, String detail) {
    this(outcome, exitCode, detail, null);
  }

  /** This result with {@code output} kept. */
  public JobResult withOutput(String output) {
    return new JobResult(outcome, exitCode, detail, output);
  }

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
