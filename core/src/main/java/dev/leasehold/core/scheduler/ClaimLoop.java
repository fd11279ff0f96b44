package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * From a due firing to a run, in named steps: {@link #dispatch} (queue behind the job's claim or
 * run, or start a claim step), {@link ClaimBatch} (claim steps due together go to the store
 * together: reports of unrun firings first, then one {@code tryClaim}, or one {@code claimAll} for
 * several jobs), and one step per answer: {@link #won} starts the run, {@link #held} waits briefly
 * for an earlier firing's lease, {@link #alreadyRun} gives up, {@link #failed} backs off (G8).
 * {@link #idle} ends every path and takes the next queued firing.
 *
 * <p>The timer thread only moves state and hands work to the workers; store calls and job bodies
 * run on workers. Slot state is guarded by {@link Slots#lock()}; methods named "(lock held)" must
 * be called with it.
 */
final class ClaimLoop implements ClaimBatch.Answers {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

  /** How often a claim refused by an earlier firing's lease is tried again. */
  static final Duration LEASE_POLL = Duration.ofMillis(100);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final History history;
  private final UnrunFirings unrun;
  private final ClaimBatch batch;

  ClaimLoop(
      Slots slots,
      FiringRules rules,
      SchedulerParts parts,
      History history,
      UnrunFirings unrun,
      Duration batchWindow) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.history = history;
    this.unrun = unrun;
    this.batch = new ClaimBatch(slots, parts, unrun, this, batchWindow);
  }

  /** (lock held) A firing is due: claim it, or queue it behind the job's claim or run. */
  void dispatch(JobSlot slot, Instant firing) {
    if (slot.phase() == JobSlot.Phase.BACKING_OFF) {
      slot.cancelRetry(); // waiting out a store error: a new firing is a reason to try now
    }
    if (slot.busy()) {
      log.debug("firing job={} firing={}: queued behind its claim or run", slot.job.name(), firing);
      slot.queue(firing);
      return;
    }
    claim(slot, firing, 1);
  }

  /** (lock held) This node will not run {@code firing}; it is reported through a claim later. */
  void notRun(JobSlot slot, Instant firing, Outcome outcome, String why) {
    slot.giveUp(firing, outcome, why);
    if (!slot.busy()) {
      claim(slot, null, 0);
    }
  }

  /** (lock held) Stop: batched claims and pending retries are called off. */
  void stop() {
    batch.drop();
    for (JobSlot slot : slots.all()) {
      slot.cancelTimers();
      if (slot.phase() == JobSlot.Phase.BACKING_OFF
          || slot.phase() == JobSlot.Phase.WAITING_FOR_LEASE) {
        idle(slot, null, false);
      }
    }
    slots.changed();
  }

  // --- answers -----------------------------------------------------------------------------

  /** (lock held) A claim step for the slot: into the batch. */
  private void claim(JobSlot slot, Instant firing, int attempt) {
    slot.enter(JobSlot.Phase.CLAIMING);
    batch.add(new ClaimBatch.Claim(slot, firing, attempt));
  }

  @Override
  public void stopped(ClaimBatch.Claim c) {
    idle(c.slot(), null, false);
  }

  @Override
  public void reported(JobSlot slot) {
    idle(slot, null, true);
  }

  @Override
  public void answered(ClaimBatch.Claim c, ClaimResult answer, long sent) {
    if (answer.kind() != ClaimResult.Kind.FAILED) {
      history.listener().storeAnswered();
    }
    switch (answer.kind()) {
      case WON -> won(c, answer.lease(), sent);
      case HELD -> held(c, answer.holder());
      case ALREADY_RUN -> alreadyRun(c);
      case FAILED -> failed(c, answer.failure());
    }
  }

  /**
   * Won: the firing is ours alone, so it runs even if a stop began meanwhile (the shutdown grace
   * applies to it like to any run) — unless the answer came after the lease's validity, counted
   * from when the claim was sent: then nothing starts, and the firing is reported missed.
   */
  private void won(ClaimBatch.Claim c, Lease lease, long sent) {
    JobDefinition job = c.slot().job;
    if (!LeaseWatchdog.answeredInTime(sent, lease.ttl(), parts.ticker().nanoTime())) {
      unrun.report(
          job,
          c.firing(),
          lease,
          new JobSlot.Unrun(
              Outcome.MISSED, "the claim's answer came after the lease's validity had passed"));
      synchronized (slots.lock()) {
        idle(c.slot(), null, false);
      }
      return;
    }
    JobRun run =
        new JobRun(job, lease, c.firing(), c.attempt(), TriggerKind.SCHEDULED, sent, parts);
    synchronized (slots.lock()) {
      c.slot().running(run);
    }
    parts
        .workers()
        .execute(
            () -> {
              try {
                history.record(run.run());
              } finally {
                synchronized (slots.lock()) {
                  idle(c.slot(), run, false);
                }
              }
            });
  }

  /**
   * Held by a run of an earlier firing: try again shortly while the firing is not older than the
   * skew allowance. A short overlap (the previous run ends just after this firing, or a replica
   * whose clock runs ahead claimed early) then delays the firing instead of losing it; after that
   * it is given up, and reported through a claim once the lease is free.
   */
  private void held(ClaimBatch.Claim c, String holder) {
    history.listener().claimRefused(c.slot().job.name(), c.firing());
    JobSlot slot = c.slot();
    synchronized (slots.lock()) {
      if (!slots.accepting()) {
        idle(slot, null, false);
      } else if (rules.olderThanSkew(c.firing(), parts.clock().instant())) {
        log.debug("claim refused job={} firing={}: held, given up", slot.job.name(), c.firing());
        slot.giveUp(
            c.firing(),
            Outcome.MISSED,
            "its lease was held by an earlier firing" + (holder == null ? "" : " of " + holder));
        idle(slot, null, false);
      } else {
        log.debug("claim refused job={} firing={}: held, waiting", slot.job.name(), c.firing());
        long step = slot.enter(JobSlot.Phase.WAITING_FOR_LEASE);
        slot.retry(parts.timer().schedule(() -> retry(slot, step, c), LEASE_POLL));
      }
    }
  }

  private void alreadyRun(ClaimBatch.Claim c) {
    history.listener().claimRefused(c.slot().job.name(), c.firing());
    log.debug("claim refused job={} firing={}: already run", c.slot().job.name(), c.firing());
    synchronized (slots.lock()) {
      idle(c.slot(), null, false);
    }
  }

  /** G8: back off and try again while the firing (or a newer one) is worth it. */
  private void failed(ClaimBatch.Claim c, LeaseStoreException error) {
    JobSlot slot = c.slot();
    JobDefinition job = slot.job;
    history.listener().storeUnavailable(job.name(), error);
    Duration pause = FiringRules.backoff(c.attempt());
    synchronized (slots.lock()) {
      Instant retryAt = parts.clock().instant().plus(pause);
      boolean retry =
          slots.accepting()
              && FiringRules.worthRetrying(
                  job.schedule(), job.policy().misfireGrace(), c.firing(), retryAt);
      log.warn(
          "store unreachable job={} firing={} attempt={}: {}; {}",
          job.name(),
          c.firing(),
          c.attempt(),
          error.toString(),
          retry ? "retrying in " + pause.toMillis() + "ms" : "firing not run");
      if (retry) {
        long step = slot.enter(JobSlot.Phase.BACKING_OFF);
        slot.retry(parts.timer().schedule(() -> afterBackoff(slot, step, c), pause));
        return;
      }
      if (slots.accepting()) {
        slot.giveUp(c.firing(), Outcome.MISSED, "the store was unreachable");
      }
      idle(slot, null, false);
    }
  }

  /** (lock held) Whether a retry timer of {@code step} still stands; goes idle after a stop. */
  private boolean stillWanted(JobSlot slot, long step) {
    if (!slot.inStep(step)) {
      return false; // a newer firing took over (dispatch called the retry off), or a stop did
    }
    if (!slots.accepting()) {
      idle(slot, null, false);
      return false;
    }
    return true;
  }

  /** Timer: a lease poll is due; the same firing is claimed again. */
  private void retry(JobSlot slot, long step, ClaimBatch.Claim c) {
    synchronized (slots.lock()) {
      if (stillWanted(slot, step)) {
        claim(slot, c.firing(), c.attempt());
      }
    }
  }

  /** Timer: the backoff ended; claims the latest due firing (coalescing) if still in its grace. */
  private void afterBackoff(JobSlot slot, long step, ClaimBatch.Claim c) {
    synchronized (slots.lock()) {
      if (!stillWanted(slot, step)) {
        return;
      }
      Instant now = parts.clock().instant();
      JobDefinition job = slot.job;
      Instant latest = rules.coalesce(job.schedule(), c.firing(), now).orElse(c.firing());
      if (FiringRules.isMissed(job.policy().misfireGrace(), latest, now)) {
        log.warn("firing not run job={} firing={}: store unreachable", job.name(), latest);
        slot.giveUp(latest, Outcome.MISSED, "the store was unreachable");
        idle(slot, null, false);
      } else {
        claim(slot, latest, c.attempt() + 1);
      }
    }
  }

  // --- idle ------------------------------------------------------------------------------

  /**
   * (lock held) Nothing in flight for the job any more: claims the next queued firing, unless it
   * waited behind this node's own run ({@code ran}) for longer than the skew allowance (an overlap:
   * given up, reported as skipped while that run's lease held, else missed) or is past its grace.
   * Then reports unrun firings: at once, or, after a report step ({@code afterReports}) that left
   * some undecided, after a pause.
   */
  private void idle(JobSlot slot, JobRun ran, boolean afterReports) {
    slot.enter(JobSlot.Phase.IDLE);
    JobDefinition job = slot.job;
    if (!slots.accepting()) {
      slot.clearQueued();
    } else {
      slot.nextQueued(parts.clock().instant(), ran, rules)
          .ifPresent(queued -> claim(slot, queued, 1));
    }
    if (slots.accepting() && !slot.busy() && slot.hasUnrun()) {
      if (afterReports) {
        Duration pause = FiringRules.reportPause(job.policy().ttl());
        slot.settleTimer(parts.timer().schedule(() -> settleLater(slot), pause));
      } else {
        claim(slot, null, 0);
      }
    }
    slots.changed();
  }

  private void settleLater(JobSlot slot) {
    synchronized (slots.lock()) {
      if (slots.accepting() && !slot.busy() && slot.hasUnrun()) {
        claim(slot, null, 0);
      }
    }
  }
}
