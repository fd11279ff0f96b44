package dev.leasehold.core.job;

import java.util.List;

/**
 * Port: the execution history, kept in the same store as the leases so {@code history} works from
 * any machine that reaches the store. Writes happen after a job ran, never on the claim path. A
 * failing write is logged by the caller and does not change the job's outcome.
 */
public interface ExecutionLog {

  void record(ExecutionRecord record);

  /**
   * The newest records first.
   *
   * @param job only this job's records, or all jobs when {@code null}
   * @param limit at most this many (at least 1)
   */
  List<ExecutionRecord> recent(String job, int limit);
}
