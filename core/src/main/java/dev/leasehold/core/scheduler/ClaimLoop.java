package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.hold.LeaseTiming;
import dev.leasehold.core.scheduler.SlotMachine.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a slot's events go in: {@link #apply} looks the event up in {@link SlotMachine}'s table,
 * enters the new phase and hands the effects to {@link SlotEffects}. The store's answers to claim
 * steps ({@link ClaimBatch.Answers}) become events here, with the facts the table needs decided at
 * their arrival: whether the answer came in time (G5), whether the firing is older than the skew
 * allowance, whether a retry after a store error is worth it (G8).
 *
 * <p>Every method here is an event of the {@link SlotOwner}.
 */
final class ClaimLoop implements ClaimBatch.Answers, SlotMachine.Feed {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final History history;
  private final Retries retries;
  private final ClaimBatch batch;
  private final SlotEffects effects;

  ClaimLoop(
      Slots slots,
      FiringRules rules,
      SchedulerParts parts,
      History history,
      UnrunFirings unrun,
      GroupSeats groups,
      Duration batchWindow) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.history = history;
    this.retries = new Retries(slots, rules, parts, history, this);
    this.batch = new ClaimBatch(slots, parts, unrun, this, batchWindow);
    this.effects =
        new SlotEffects(slots, rules, parts, history, unrun, retries, batch, groups, this);
  }

  /** Event: the slot moves along the table; the effects are performed in order. */
  @Override
  public void apply(JobSlot slot, SlotMachine.Event event) {
    JobSlot.Phase from = slot.phase();
    if (event instanceof SlotMachine.Due d
        && slot.job.policy().overlap() == Overlap.REPLACE
        && !retries.isRetry(slot, d.firing())) {
      event = new SlotMachine.Due(d.firing(), true); // a scheduled firing replaces a run here
    }
    Transition t = SlotMachine.next(from, event);
    long step = t.to() == from ? -1 : slot.enter(t.to());
    for (SlotEffect effect : t.effects()) {
      effects.perform(slot, step, effect);
    }
  }

  /** Event (stop): batched claims, backoffs and lease polls are called off, their slots idle. */
  void stop() {
    for (JobSlot slot : batch.drop()) {
      apply(slot, new SlotMachine.Stopped());
    }
    for (JobSlot slot : slots.withRetired()) {
      slot.cancelTimers();
      if (slot.phase() == JobSlot.Phase.BACKING_OFF
          || slot.phase() == JobSlot.Phase.WAITING_FOR_LEASE) {
        apply(slot, new SlotMachine.Stopped());
      }
    }
    slots.changed();
  }

  @Override
  public void stopped(ClaimStep step) {
    apply(step.slot(), new SlotMachine.Stopped());
  }

  @Override
  public void reported(ClaimStep step, List<Instant> settled) {
    settled.forEach(step.slot()::settled);
    if (step instanceof ClaimStep.Report) {
      apply(step.slot(), new SlotMachine.Reported());
    }
  }

  @Override
  public void answered(ClaimStep.Claim c, ClaimResult answer, long sent, long received) {
    if (answer.kind() != ClaimResult.Kind.FAILED) {
      history.listener().storeAnswered();
    }
    apply(c.slot(), event(c, answer, sent, received));
  }

  private SlotMachine.Event event(ClaimStep.Claim c, ClaimResult answer, long sent, long got) {
    JobSlot slot = c.slot();
    String job = slot.job.name();
    Instant now = parts.clock().instant();
    switch (answer.kind()) {
      case WON:
        return new SlotMachine.Won(c.firing(), answer.lease(), sent, late(c, answer, sent, got));
      case HELD:
        history.listener().claimRefused(job, c.firing());
        boolean older = rules.olderThanSkew(c.firing(), now);
        boolean retry = retries.isRetry(slot, c.firing());
        boolean buffered =
            !retry && FiringRules.buffered(slot.job, c.firing(), answer.watermark(), now);
        log.debug(
            "claim refused job={} firing={}: held, {}",
            job,
            c.firing(),
            older && !buffered ? "given up" : "waiting");
        return new SlotMachine.Held(
            c.firing(),
            c.attempt(),
            answer.holder(),
            slots.accepting(slot),
            retry,
            older,
            buffered);
      case ALREADY_RUN:
        history.listener().claimRefused(job, c.firing());
        log.debug("claim refused job={} firing={}: already run", job, c.firing());
        return new SlotMachine.AlreadyRun(c.firing());
      case PAUSED:
        return new SlotMachine.Paused(c.firing());
      default:
        return failed(c, answer.failure());
    }
  }

  /**
   * Why a won claim must not run: its answer came after the lease's validity, counted from when the
   * claim was sent, or after the firing's misfire grace (a store cut off mid-claim: starting now
   * would run the firing later than the grace allows, and hold the lease against a newer firing).
   */
  private String late(ClaimStep.Claim c, ClaimResult answer, long sent, long received) {
    if (!LeaseTiming.answeredInTime(sent, answer.lease().ttl(), received)) {
      return "the claim's answer came after the lease's validity had passed";
    }
    JobDefinition job = c.slot().job;
    if (FiringRules.isMissed(job.policy().misfireGrace(), c.firing(), parts.clock().instant())) {
      return "the claim's answer came after the firing's misfire grace had passed";
    }
    return null;
  }

  /** G8: back off and try again while the firing (or a newer one) is worth it. */
  private SlotMachine.Event failed(ClaimStep.Claim c, LeaseStoreException error) {
    JobSlot slot = c.slot();
    JobDefinition job = slot.job;
    history.listener().storeUnavailable(job.name(), error);
    Duration pause = FiringRules.backoff(c.attempt());
    Instant retryAt = parts.clock().instant().plus(pause);
    boolean accepting = slots.accepting(slot);
    boolean worth =
        FiringRules.worthRetrying(job.schedule(), job.policy().misfireGrace(), c.firing(), retryAt);
    log.warn(
        "store unreachable job={} firing={} attempt={}: {}; {}",
        job.name(),
        c.firing(),
        c.attempt(),
        error.toString(),
        accepting && worth ? "retrying in " + pause.toMillis() + "ms" : "firing not run");
    return new SlotMachine.Failed(c.firing(), c.attempt(), accepting, worth);
  }
}
