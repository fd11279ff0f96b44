package dev.leasehold.core.scheduler;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After this node recorded a paused firing of a job, it reads the pause every {@link #POLL} until
 * the job is resumed, then claims the job's latest firing within its misfire grace, as at start-up
 * (G9). After a plain resume the watermark refuses that claim (the firing was recorded as paused);
 * after a resume with catch-up the store lowered the watermark just below the latest paused firing,
 * so that one firing runs, once. Its methods are events of the {@link SlotOwner}; the read runs on
 * a worker.
 */
final class ResumeWatch {
  private static final Logger log = LoggerFactory.getLogger(ResumeWatch.class);

  /** How often a node that recorded a paused firing reads whether the job was resumed. */
  static final Duration POLL = Duration.ofSeconds(2);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final SlotMachine.Feed feed;
  private final SlotOwner owner;

  ResumeWatch(Slots slots, FiringRules rules, SchedulerParts parts, SlotMachine.Feed feed) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.feed = feed;
    this.owner = slots.owner();
  }

  /** Event: starts watching the job's pause, unless this node already does. */
  void watch(JobSlot slot) {
    if (slots.accepting(slot) && slot.watchResume()) {
      owner.later(POLL, () -> readPause(slot));
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
      owner.later(POLL, () -> readPause(slot));
      return;
    }
    slot.resumeWatched();
    Instant now = parts.clock().instant();
    log.info(
        "job={} resumed: claiming its latest firing within the misfire grace", slot.job.name());
    rules
        .catchUp(slot.job.schedule(), slot.job.policy().misfireGrace(), now)
        .ifPresent(firing -> feed.apply(slot, new SlotMachine.Due(firing)));
  }
}
