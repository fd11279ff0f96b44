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
   * No replica ran the firing and none ever will: a claim spent it without running it (its lease
   * was held by an earlier firing's run past the clock-skew allowance, the store did not answer
   * until past the misfire grace, or the claim's answer came too late); reported once,
   * cluster-wide. Firings coalesced into a later one are not reported.
   */
  MISSED,
  /**
   * The firing fell while the job was paused cluster-wide ({@code leasehold pause}): nothing ran;
   * recorded once, cluster-wide, by the replica whose claim moved the watermark to it.
   */
  PAUSED,
  /**
   * The job's concurrency group had no free slot from the firing until past its misfire grace:
   * nothing ran; recorded once, cluster-wide, by the replica that claimed the firing and waited.
   */
  GROUP_FULL,
  /**
   * Not a firing: an operator reset the job's lease ({@code leasehold reset}): released it and
   * raised its fence (the record's fence) above every fence given before. Recorded by the command.
   */
  RESET,
  /**
   * Not a run: a request for one run of a job by a live replica ({@code leasehold trigger}),
   * written by the command under the history name {@code _leasehold.requests}; the detail names the
   * job, the request id and until when a replica may take it.
   */
  REQUESTED,
  /**
   * Not a run: a replica took a request ({@link #REQUESTED}) under the job's lease and starts it
   * now; written once per request, under {@code _leasehold.requests}, before the run begins. The
   * run itself has a row of its own under the job's name.
   */
  TAKEN,
  /**
   * The run was stopped because the job's next firing came due ({@code overlap: replace}): its
   * process tree got SIGTERM, then SIGKILL after {@code kill-grace}; the next firing started once
   * it had ended. Recorded by the replica that ran it.
   */
  REPLACED;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
