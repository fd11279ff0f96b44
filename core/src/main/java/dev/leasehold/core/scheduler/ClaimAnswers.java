package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One step per answer to a claim step: {@link #won} starts the run, {@link #held} waits briefly for
 * an earlier firing's lease, {@link #alreadyRun} gives up, {@link #failed} backs off (G8); each
 * ends in {@link ClaimLoop#idle} or a new claim step. Every method is an event of the {@link
 * SlotOwner}; blocking work (the run, a late claim's report) goes to a worker and its end comes
 * back as an event. A timer started for a phase acts only if the slot is still in that phase's step
 * when it goes off ({@link JobSlot#inStep}).
 */
final class ClaimAnswers implements ClaimBatch.Answers {
  private static final Logger log = LoggerFactory.getLogger(ClaimAnswers.class);

  /** How often a claim refused by an earlier firing's lease is tried again. */
  static final Duration LEASE_POLL = Duration.ofMillis(100);

  private final ClaimLoop loop;
  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final History history;
  private final UnrunFirings unrun;
  private final Retries retries;
  private final SlotOwner owner;

  ClaimAnswers(
      ClaimLoop loop,
      Slots slots,
      FiringRules rules,
      SchedulerParts parts,
      History history,
      UnrunFirings unrun,
      Retries retries) {
    this.loop = loop;
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.history = history;
    this.unrun = unrun;
    this.retries = retries;
    this.owner = slots.owner();
  }

  @Override
  public void stopped(ClaimStep step) {
    loop.idle(step.slot(), null, false);
  }

  @Override
  public void reported(ClaimStep step, List<Instant> settled) {
    settled.forEach(step.slot()::settled);
    if (step instanceof ClaimStep.Report) {
      loop.idle(step.slot(), null, true);
    }
  }

  @Override
  public void answered(ClaimStep.Claim c, ClaimResult answer, long sent, long received) {
    if (answer.kind() != ClaimResult.Kind.FAILED) {
      history.listener().storeAnswered();
    }
    switch (answer.kind()) {
      case WON -> won(c, answer.lease(), sent, received);
      case HELD -> held(c, answer.holder());
      case ALREADY_RUN -> alreadyRun(c);
      case PAUSED -> paused(c);
      case FAILED -> failed(c, answer.failure());
    }
  }

  /**
   * Paused: this claim recorded the firing (the watermark stands at it and no lease started), so
   * this node writes its one {@code paused} row, on a worker; then the slot goes idle and the job
   * is watched for its resume ({@link ClaimLoop#watchResume}).
   */
  private void paused(ClaimStep.Claim c) {
    JobSlot slot = c.slot();
    onWorker(
        () -> unrun.recordPaused(slot.job, c.firing()),
        () -> {
          loop.idle(slot, null, false);
          loop.watchResume(slot);
        });
  }

  /**
   * Won: the firing is ours alone, so it runs even if a stop began meanwhile (the shutdown grace
   * applies to it like to any run) — unless the answer came after the lease's validity, counted
   * from when the claim was sent, or after the firing's misfire grace: then nothing starts, and the
   * firing is reported missed (on a worker, before the slot goes idle, so the lease is free before
   * the job's next claim).
   */
  private void won(ClaimStep.Claim c, Lease lease, long sent, long received) {
    JobSlot slot = c.slot();
    JobDefinition job = slot.job;
    String late = null;
    if (!LeaseWatchdog.answeredInTime(sent, lease.ttl(), received)) {
      late = "the claim's answer came after the lease's validity had passed";
    } else if (FiringRules.isMissed(
        job.policy().misfireGrace(), c.firing(), parts.clock().instant())) {
      // sent within the grace, answered past it (a store cut off mid-claim): starting now would
      // run the firing later than the grace allows, and hold the lease against a newer firing
      late = "the claim's answer came after the firing's misfire grace had passed";
    }
    if (late != null) {
      JobSlot.Unrun unrunLate = new JobSlot.Unrun(Outcome.MISSED, late);
      onWorker(
          () -> unrun.report(job, c.firing(), lease, unrunLate),
          () -> loop.idle(slot, null, false));
      return;
    }
    Retries.Run which = retries.runOf(slot, c.firing());
    JobRun run =
        new JobRun(job, lease, which.firing(), which.attempt(), TriggerKind.SCHEDULED, sent, parts);
    slot.running(run);
    parts
        .groups()
        .run(
            run,
            job,
            parts,
            row -> {
              FiringRules.AfterRun after = FiringRules.AfterRun.FINAL;
              try {
                if (row != null) {
                  after = retries.plan(job, row);
                  history.record(row, after.retrying());
                }
              } finally {
                FiringRules.AfterRun next = after;
                owner.execute(
                    () -> {
                      if (row != null) {
                        retries.ran(slot, row, next);
                      }
                      loop.idle(slot, run, false);
                    });
              }
            });
  }

  /** Runs blocking {@code work} on a worker, then hands {@code then} to the owner as an event. */
  private void onWorker(Runnable work, Runnable then) {
    parts
        .workers()
        .execute(
            () -> {
              try {
                work.run();
              } finally {
                owner.execute(then);
              }
            });
  }

  /**
   * Held by a run of an earlier firing: try again shortly while the firing is not older than the
   * skew allowance. A short overlap (the previous run ends just after this firing, or a replica
   * whose clock runs ahead claimed early) then delays the firing instead of losing it; after that
   * it is given up, and reported through a claim once the lease is free.
   */
  private void held(ClaimStep.Claim c, String holder) {
    history.listener().claimRefused(c.slot().job.name(), c.firing());
    JobSlot slot = c.slot();
    if (!slots.accepting(slot)) {
      loop.idle(slot, null, false);
    } else if (retries.isRetry(slot, c.firing())
        && rules.olderThanSkew(c.firing(), parts.clock().instant())) {
      retries.forget(slot, c.firing()); // a retry is not a firing: nothing to report as missed
      loop.idle(slot, null, false);
    } else if (rules.olderThanSkew(c.firing(), parts.clock().instant())) {
      log.debug("claim refused job={} firing={}: held, given up", slot.job.name(), c.firing());
      slot.giveUp(
          c.firing(),
          Outcome.MISSED,
          "its lease was held by an earlier firing" + (holder == null ? "" : " of " + holder));
      loop.idle(slot, null, false);
    } else {
      log.debug("claim refused job={} firing={}: held, waiting", slot.job.name(), c.firing());
      long step = slot.enter(JobSlot.Phase.WAITING_FOR_LEASE);
      slot.retry(owner.later(LEASE_POLL, () -> retry(slot, step, c)));
    }
  }

  private void alreadyRun(ClaimStep.Claim c) {
    history.listener().claimRefused(c.slot().job.name(), c.firing());
    log.debug("claim refused job={} firing={}: already run", c.slot().job.name(), c.firing());
    retries.refused(c.slot(), c.firing());
    loop.idle(c.slot(), null, false);
  }

  /** G8: back off and try again while the firing (or a newer one) is worth it. */
  private void failed(ClaimStep.Claim c, LeaseStoreException error) {
    JobSlot slot = c.slot();
    JobDefinition job = slot.job;
    history.listener().storeUnavailable(job.name(), error);
    Duration pause = FiringRules.backoff(c.attempt());
    Instant retryAt = parts.clock().instant().plus(pause);
    boolean retry =
        slots.accepting(slot)
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
      slot.retry(owner.later(pause, () -> afterBackoff(slot, step, c)));
      return;
    }
    if (slots.accepting(slot)) {
      slot.giveUp(c.firing(), Outcome.MISSED, "the store was unreachable");
    }
    loop.idle(slot, null, false);
  }

  /** Whether a retry timer of {@code step} still stands; goes idle after a stop. */
  private boolean stillWanted(JobSlot slot, long step) {
    if (!slot.inStep(step)) {
      return false; // a newer firing took over (dispatch called the retry off), or a stop did
    }
    if (!slots.accepting(slot)) {
      loop.idle(slot, null, false);
      return false;
    }
    return true;
  }

  /** Timer event: a lease poll is due; the same firing is claimed again. */
  private void retry(JobSlot slot, long step, ClaimStep.Claim c) {
    if (stillWanted(slot, step)) {
      loop.claim(slot, c.firing(), c.attempt());
    }
  }

  /** Timer event: the backoff ended; claims the latest due firing (coalescing) if in its grace. */
  private void afterBackoff(JobSlot slot, long step, ClaimStep.Claim c) {
    if (!stillWanted(slot, step)) {
      return;
    }
    Instant now = parts.clock().instant();
    JobDefinition job = slot.job;
    Instant latest = rules.coalesce(job.schedule(), c.firing(), now).orElse(c.firing());
    if (FiringRules.isMissed(job.policy().misfireGrace(), latest, now)) {
      log.warn("firing not run job={} firing={}: store unreachable", job.name(), latest);
      slot.giveUp(latest, Outcome.MISSED, "the store was unreachable");
      loop.idle(slot, null, false);
    } else {
      loop.claim(slot, latest, c.attempt() + 1);
    }
  }
}
