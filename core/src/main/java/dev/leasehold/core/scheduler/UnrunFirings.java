package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports the firings nobody ran, once cluster-wide, by claiming them.
 *
 * <p>A replica that gives up a firing (its lease was held by an earlier firing past the skew
 * allowance, the store was unreachable past the grace, it waited behind this node's own run) does
 * not write history at once: another replica may have run it, or may report it too. Instead it
 * later <em>claims that firing</em> with the ordinary claim, firings of one job in order and before
 * any newer claim of the job on this node. The watermark makes the answer decisive:
 *
 * <ul>
 *   <li>won: no replica ran the firing, and none can any more (the watermark is now at it). This
 *       node releases the lease at once and writes the one row: {@code skipped} when the firing
 *       waited behind this node's own run under a live lease, else {@code missed} with a WARN line
 *       and {@link SchedulerListener#firingMissed}.
 *   <li>already run: someone ran or reported it; nothing is written.
 *   <li>held, or the store failed: kept, and tried again before the job's next claim or after a
 *       pause.
 * </ul>
 *
 * Since a run, a skip and a miss all need the firing's claim, history holds at most one row per job
 * and firing. Not every unrun firing is reported: firings coalesced into a later one (G9), a dead
 * holder's own firing, and firings whose report comes after a newer firing was claimed.
 */
final class UnrunFirings {
  private static final Logger log = LoggerFactory.getLogger(UnrunFirings.class);

  private final SchedulerParts parts;
  private final History history;

  UnrunFirings(SchedulerParts parts, History history) {
    this.parts = parts;
    this.history = history;
  }

  /**
   * On a worker: claims {@code todo} (a slot's unrun firings, oldest first, as the owner handed
   * them out) in order, and reports those it wins; stops at the first that cannot be decided now.
   * Returns the firings decided, for the owner to forget.
   */
  List<Instant> settle(JobDefinition job, List<Map.Entry<Instant, JobSlot.Unrun>> todo) {
    List<Instant> settled = new ArrayList<>();
    for (Map.Entry<Instant, JobSlot.Unrun> e : todo) {
      ClaimResult answer;
      try {
        answer = parts.store().tryClaim(job.name(), e.getKey(), parts.node(), job.policy().ttl());
      } catch (RuntimeException failure) {
        log.debug(
            "report of job={} firing={} waits: {}", job.name(), e.getKey(), failure.toString());
        break;
      }
      history.listener().storeAnswered();
      if (answer.kind() == ClaimResult.Kind.WON) {
        report(job, e.getKey(), answer.lease(), e.getValue());
      } else if (answer.kind() == ClaimResult.Kind.PAUSED) {
        recordPaused(job, e.getKey()); // the job was paused since: not missed, paused
      } else if (answer.kind() != ClaimResult.Kind.ALREADY_RUN) {
        break; // held (or a store that answers FAILED): decided later
      }
      settled.add(e.getKey());
    }
    return settled;
  }

  /**
   * On a worker: writes the one {@code paused} row of a firing whose claim met the job's pause (the
   * claim moved the watermark to it, so no other replica writes it).
   */
  void recordPaused(JobDefinition job, Instant firing) {
    Instant now = parts.clock().instant();
    log.info(
        "firing paused job={} firing={} node={}: the job is paused cluster-wide; not run",
        job.name(),
        firing,
        parts.node());
    history.record(
        new ExecutionRecord(
            job.name(),
            firing,
            parts.node(),
            0,
            TriggerKind.SCHEDULED,
            now,
            now,
            Outcome.PAUSED,
            null,
            "the job was paused"));
  }

  /**
   * On a worker: releases a lease won for a firing that will not run, and writes that firing's one
   * row.
   */
  void report(JobDefinition job, Instant firing, Lease lease, JobSlot.Unrun unrun) {
    parts.release(lease);
    Instant now = parts.clock().instant();
    ExecutionRecord record =
        new ExecutionRecord(
            job.name(),
            firing,
            parts.node(),
            0,
            TriggerKind.SCHEDULED,
            now,
            now,
            unrun.outcome(),
            null,
            unrun.why());
    if (unrun.outcome() == Outcome.MISSED) {
      log.warn(
          "firing missed job={} firing={} node={}: no replica ran it; {}",
          job.name(),
          firing,
          parts.node(),
          unrun.why());
    } else {
      log.info(
          "execution job={} firing={} node={} outcome={}: {}",
          job.name(),
          firing,
          parts.node(),
          unrun.outcome().label(),
          unrun.why());
    }
    history.record(record);
  }
}
