package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.RunSeats;
import dev.leasehold.core.lease.hold.LeaseTiming;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs of a job whose firings may overlap ({@link Overlap#ALLOW}). The firing's claim on the job's
 * lease won, so the watermark stands at it and no replica can run it again; then, on a worker, the
 * run takes a lease of its own, a {@link RunSeats run seat}, releases the job's lease at once and
 * runs under the seat (renewals, deadline and supervisor as for any run). Its fence is the claim's:
 * every run of the job has its own, rising with the firings. The slot goes idle as soon as the
 * job's lease is released ({@link SlotMachine.Detached}), so the next firing is claimed while the
 * run goes on; the slot keeps the run ({@link JobSlot#overlapping}) until it ends, for a stop to
 * wait for it. When no seat can be taken (every seat held, the store failing, an answer after its
 * validity) the run goes under the job's lease as with any other policy: once, without overlap.
 */
final class OverlappingRuns {
  private static final Logger log = LoggerFactory.getLogger(OverlappingRuns.class);

  private final Slots slots;
  private final SchedulerParts parts;
  private final Retries retries;
  private final GroupSeats groups;
  private final SlotMachine.Feed feed;
  private final SlotEffects effects;
  private final SlotOwner owner;

  OverlappingRuns(
      Slots slots,
      SchedulerParts parts,
      Retries retries,
      GroupSeats groups,
      SlotMachine.Feed feed,
      SlotEffects effects) {
    this.slots = slots;
    this.parts = parts;
    this.retries = retries;
    this.groups = groups;
    this.feed = feed;
    this.effects = effects;
    this.owner = slots.owner();
  }

  /** Event: the won firing of {@code r} takes its seat on a worker, then runs under it. */
  void start(JobSlot slot, JobDefinition job, SlotEffect.Run r, Retries.Run which) {
    parts.workers().execute(() -> takeSeat(slot, job, r, which));
  }

  /** Worker: the seat, the job's lease released, and the run handed back to the owner. */
  private void takeSeat(JobSlot slot, JobDefinition job, SlotEffect.Run r, Retries.Run which) {
    long sent = parts.ticker().nanoTime();
    Lease seat = null;
    String why = "every one of its " + RunSeats.MAX + " run seats is held";
    try {
      seat =
          RunSeats.tryTake(parts.store(), job.name(), parts.node(), job.policy().ttl())
              .orElse(null);
      if (seat != null
          && !LeaseTiming.answeredInTime(sent, seat.ttl(), parts.ticker().nanoTime())) {
        parts.release(seat);
        seat = null;
        why = "its run seat's answer came after the seat's validity";
      }
    } catch (RuntimeException e) {
      why = "its run seat could not be taken: " + e;
    }
    if (seat == null) {
      log.warn(
          "job={} firing={}: {}; it runs under the job's lease, without overlap",
          job.name(),
          r.firing(),
          why);
      owner.execute(() -> effects.runHeld(slot, job, r, which));
      return;
    }
    parts.release(r.lease()); // the next firing may be claimed from now on
    JobRun run =
        new JobRun(
            job,
            seat,
            which.firing(),
            which.attempt(),
            TriggerKind.SCHEDULED,
            0,
            sent,
            r.lease().fence(),
            parts);
    owner.execute(
        () -> {
          slot.overlapping(run, true);
          feed.apply(slot, new SlotMachine.Detached());
          groups.run(run, job, parts, row -> ended(slot, job, run, row));
        });
  }

  /** Worker: the run ended in {@code row}; it is written, and the slot lets the run go. */
  private void ended(JobSlot slot, JobDefinition job, JobRun run, ExecutionRecord row) {
    FiringRules.AfterRun after = FiringRules.AfterRun.FINAL;
    try {
      after = effects.recorded(job, row);
    } finally {
      FiringRules.AfterRun then = after;
      owner.execute(
          () -> {
            slot.overlapping(run, false);
            if (row != null) {
              retries.ran(slot, row, then);
            }
            slots.changed();
          });
    }
  }
}
