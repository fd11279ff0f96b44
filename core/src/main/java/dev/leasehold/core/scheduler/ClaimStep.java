package dev.leasehold.core.scheduler;

import java.time.Instant;

/**
 * What one job's turn in a {@link ClaimBatch} asks of the store. Both kinds first report the job's
 * unrun firings ({@link UnrunFirings}); a {@link Claim} then claims a firing to run it, a {@link
 * Report} stops there. A slot is {@link JobSlot.Phase#CLAIMING} while its step is batched or in
 * flight, and has at most one step at a time.
 */
sealed interface ClaimStep permits ClaimStep.Claim, ClaimStep.Report {

  JobSlot slot();

  /** The job as the owner saw it when the step was made: what a worker reads. */
  JobDefinition job();

  /** Claims {@code firing} to run it; {@code attempt} counts tries after store errors (G8). */
  record Claim(JobSlot slot, JobDefinition job, Instant firing, int attempt) implements ClaimStep {}

  /** Only reports the job's unrun firings; nothing runs. */
  record Report(JobSlot slot, JobDefinition job) implements ClaimStep {}
}
