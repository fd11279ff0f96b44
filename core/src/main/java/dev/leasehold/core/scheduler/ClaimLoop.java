package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.Outcome;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * From a due firing to a run, in named steps: {@link #dispatch} (queue behind the job's claim or
 * run, or start a claim step), {@link ClaimBatch} (claim steps due together go to the store
 * together: reports of unrun firings first, then one {@code tryClaim}, or one {@code claimAll} for
 * several jobs), {@link ClaimAnswers} (one step per answer: run, wait for the lease, give up, back
 * off), and {@link #idle}, which ends every path and takes the next queued firing or report.
 *
 * <p>Every method here is an event of the {@link SlotOwner}: it runs inside the owner, moves slot
 * state, and hands store calls to the workers, whose results come back as new events.
 */
final class ClaimLoop {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final ClaimBatch batch;
  private final SlotOwner owner;

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
    Retries retries = new Retries(slots, rules, parts, history, this);
    ClaimAnswers answers = new ClaimAnswers(this, slots, rules, parts, history, unrun, retries);
    this.batch = new ClaimBatch(slots, parts, unrun, answers, batchWindow);
    this.owner = slots.owner();
  }

  /** Event: a firing is due: claim it, or queue it behind the job's claim or run. */
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

  /** How often a node that recorded a paused firing reads whether the job was resumed. */
  static final Duration RESUME_POLL = Duration.ofSeconds(2);

  /**
   * Event: this node recorded a paused firing of the job; from now on it reads the pause every
   * {@link #RESUME_POLL} until the job is resumed, then claims the job's latest firing within its
   * misfire grace, as at start-up (G9). After a plain resume the watermark refuses that claim (the
   * firing was recorded as paused); after a resume with catch-up the store lowered the watermark
   * just below the latest paused firing, so that one firing runs, once.
   */
  void watchResume(JobSlot slot) {
    if (slots.accepting(slot) && slot.watchResume()) {
      owner.later(RESUME_POLL, () -> readPause(slot));
    }
  }

  private void readPause(JobSlot slot) {
    if (!slots.accepting(slot)) {
      slot.resumeWatched();
      return;
    }
    String name = slot.job.name();
    parts
        .workers()
        .execute(
            () -> {
              Boolean paused;
              try {
                paused = parts.store().inspect(name).map(s -> s.paused()).orElse(false);
              } catch (RuntimeException e) {
                log.debug("reading the pause of job={} failed: {}", name, e.toString());
                paused = null; // asked again at the next poll
              }
              Boolean answer = paused;
              owner.execute(() -> pauseRead(slot, answer));
            });
  }

  private void pauseRead(JobSlot slot, Boolean paused) {
    if (!slots.accepting(slot)) {
      slot.resumeWatched();
      return;
    }
    if (paused == null || paused) {
      owner.later(RESUME_POLL, () -> readPause(slot));
      return;
    }
    slot.resumeWatched();
    Instant now = parts.clock().instant();
    log.info(
        "job={} resumed: claiming its latest firing within the misfire grace", slot.job.name());
    rules
        .catchUp(slot.job.schedule(), slot.job.policy().misfireGrace(), now)
        .ifPresent(firing -> dispatch(slot, firing));
  }

  /** Event: this node will not run {@code firing}; it is reported through a claim later. */
  void notRun(JobSlot slot, Instant firing, Outcome outcome, String why) {
    slot.giveUp(firing, outcome, why);
    if (!slot.busy()) {
      report(slot);
    }
  }

  /** Event (stop): batched claims and pending retries are called off. */
  void stop() {
    batch.drop();
    for (JobSlot slot : slots.withRetired()) {
      slot.cancelTimers();
      if (slot.phase() == JobSlot.Phase.BACKING_OFF
          || slot.phase() == JobSlot.Phase.WAITING_FOR_LEASE) {
        idle(slot, null, false);
      }
    }
    slots.changed();
  }

  // --- steps -------------------------------------------------------------------------------

  /** Event: a claim step for {@code firing}. */
  void claim(JobSlot slot, Instant firing, int attempt) {
    slot.enter(JobSlot.Phase.CLAIMING);
    batch.add(new ClaimStep.Claim(slot, firing, attempt));
  }

  /** Event: a step that only reports the slot's unrun firings. */
  private void report(JobSlot slot) {
    slot.enter(JobSlot.Phase.CLAIMING);
    batch.add(new ClaimStep.Report(slot));
  }

  // --- idle ------------------------------------------------------------------------------

  /**
   * Nothing in flight for the job any more: claims the next queued firing, unless it waited behind
   * this node's own run ({@code ran}) for longer than the skew allowance (an overlap: given up,
   * reported as skipped while that run's lease held, else missed) or is past its grace. Then
   * reports unrun firings: at once, or, after a report step ({@code afterReports}) that left some
   * undecided, after a pause.
   */
  void idle(JobSlot slot, JobRun ran, boolean afterReports) {
    slot.enter(JobSlot.Phase.IDLE);
    JobDefinition job = slot.job;
    if (!slots.accepting(slot)) {
      slot.clearQueued();
    } else {
      slot.nextQueued(parts.clock().instant(), ran, rules)
          .ifPresent(queued -> claim(slot, queued, 1));
    }
    if (slots.accepting(slot) && !slot.busy() && slot.hasUnrun()) {
      if (afterReports) {
        Duration pause = FiringRules.reportPause(job.policy().ttl());
        slot.settleTimer(owner.later(pause, () -> settleLater(slot)));
      } else {
        report(slot);
      }
    }
    slots.changed();
  }

  /** Timer event: the pause after undecided reports ended. */
  private void settleLater(JobSlot slot) {
    if (slots.accepting(slot) && !slot.busy() && slot.hasUnrun()) {
      report(slot);
    }
  }
}
