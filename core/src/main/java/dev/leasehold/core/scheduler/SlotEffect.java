package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.Lease;
import java.time.Instant;

/**
 * What the owner does after a slot's transition ({@link SlotMachine}), in order; {@link
 * SlotEffects} performs each.
 */
sealed interface SlotEffect {

  /** A claim step for {@code firing} joins the batch. */
  record Claim(Instant firing, int attempt) implements SlotEffect {}

  /** A step that only reports the slot's unrun firings joins the batch. */
  record Report() implements SlotEffect {}

  /** The firing waits behind the claim or run in flight. */
  record Queue(Instant firing) implements SlotEffect {}

  /** This node's run of the job, of a firing before {@code firing}, is stopped as replaced. */
  record Replace(Instant firing) implements SlotEffect {}

  /**
   * The run starts under the won lease (on the workers, through the job's group); {@code manual} is
   * null for a scheduled firing.
   */
  record Run(Instant firing, Lease lease, long sentNanos, ManualRun manual) implements SlotEffect {}

  /** The manual run takes the job's lease with {@code acquire}, on its thread. */
  record Acquire(ManualRun run) implements SlotEffect {}

  /** The job has a claim or run in flight here: the manual run is refused (nothing ran). */
  record Refuse(ManualRun run) implements SlotEffect {}

  /** The manual run's acquisition was refused or failed ({@code error}): nothing ran. */
  record Answer(ManualRun run, RuntimeException error) implements SlotEffect {}

  /** The manual run's lease came too late to count on: released, and nothing ran. */
  record ReleaseLate(ManualRun run, Lease lease) implements SlotEffect {}

  /** A won firing that cannot run is released and reported missed, on a worker. */
  record ReportLate(Instant firing, Lease lease, String why) implements SlotEffect {}

  /** The paused firing's row is written, on a worker. */
  record RecordPaused(Instant firing) implements SlotEffect {}

  /** The firing is kept, to be reported through a claim later. */
  record GiveUp(Instant firing, Outcome outcome, String why) implements SlotEffect {}

  /** The same firing is claimed again after a short pause. */
  record PollLease(Instant firing, int attempt) implements SlotEffect {}

  /** The claim is tried again after the backoff of {@code attempt}. */
  record Backoff(Instant firing, int attempt) implements SlotEffect {}

  /** Another replica runs the firing: its retries are followed through the history. */
  record FollowRetry(Instant firing) implements SlotEffect {}

  /** A retry this node will not claim is forgotten. */
  record ForgetRetry(Instant firing) implements SlotEffect {}

  /** The ended run's record plans its retry. */
  record Ran(ExecutionRecord row, FiringRules.AfterRun after) implements SlotEffect {}

  /** What comes after a claim or run: the next queued firing, then the reports ({@link Idle}). */
  record Next(JobContext ran, boolean afterReports) implements SlotEffect {}

  /** The reports are tried again after a pause. */
  record SettleLater() implements SlotEffect {}

  /** This node recorded a paused firing: it reads the pause until the job is resumed. */
  record WatchResume() implements SlotEffect {}
}
