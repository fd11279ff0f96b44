package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.time.TaskTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer side: at start, each job's catch-up firing (G9) and its first timer; at each timer,
 * which firing is due (a timer that wakes early waits the rest, a late one coalesces) and the next
 * timer. Nothing polls: one {@link TaskTimer} task per job is pending at a time. Its methods are
 * events of the {@link SlotOwner} (a timer hands them over) and never block; due firings go to the
 * owner's {@link SlotMachine.Feed}.
 */
final class FiringTimer {
  private static final Logger log = LoggerFactory.getLogger(FiringTimer.class);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final SlotMachine.Feed feed;

  FiringTimer(Slots slots, FiringRules rules, SchedulerParts parts, SlotMachine.Feed feed) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.feed = feed;
  }

  /**
   * Event: claims each job's catch-up firing, if any, and sets its first timer. A job that no
   * replica ever claimed (not in {@code claimed}; {@code null} = unknown, all catch up) is new to
   * the cluster: it catches up nothing, and its first timer is for the first firing after this
   * start less the timer tolerance, so it never runs a firing from before the cluster knew the job
   * (not even one inside the skew allowance, which the others' first timers take).
   */
  void start(Set<String> claimed) {
    Instant now = parts.clock().instant();
    for (JobSlot slot : slots.all()) {
      if (claimed != null && !claimed.contains(slot.job.name())) {
        scheduleNext(slot, now.minus(FiringRules.TIMER_TOLERANCE));
        continue;
      }
      rules
          .catchUp(slot.job.schedule(), slot.job.policy().misfireGrace(), now)
          .ifPresent(firing -> feed.apply(slot, new SlotMachine.Due(firing)));
      scheduleNext(slot, rules.horizon(now));
    }
  }

  /**
   * Event (reload): sets the first timer of a job added, or of a job whose schedule changed (its
   * pending timer is called off), for its first firing after now: nothing from before the reload is
   * caught up, and the new schedule applies from its next firing.
   */
  void fromNow(JobSlot slot) {
    slot.cancelNextFiring();
    scheduleNext(slot, parts.clock().instant());
  }

  /** Event: sets the timer for the first firing after {@code after}. */
  private void scheduleNext(JobSlot slot, Instant after) {
    Optional<Instant> next = slot.job.schedule().nextAfter(after);
    if (next.isEmpty()) {
      slot.nextFiring(null);
      return;
    }
    Instant firing = next.get();
    Duration delay = Duration.between(parts.clock().instant(), firing);
    long timer = slot.timerGeneration();
    slot.nextFiring(slots.owner().later(delay, () -> onTimer(slot, firing, timer)));
  }

  /**
   * Event: the timer for {@code firing} went off. A timer of an earlier generation was called off
   * by a reload after its event was handed over, and does nothing.
   */
  private void onTimer(JobSlot slot, Instant firing, long timer) {
    if (!slots.accepting(slot) || slot.timerGeneration() != timer) {
      return;
    }
    Instant now = parts.clock().instant();
    if (now.isBefore(firing)) {
      // the wall clock is behind the timer (it was set back, or we woke early): wait the rest
      slot.nextFiring(
          slots.owner().later(Duration.between(now, firing), () -> onTimer(slot, firing, timer)));
      return;
    }
    Optional<Instant> target = rules.coalesce(slot.job.schedule(), firing, now);
    if (target.isEmpty()) {
      // younger firings are due: they run one by one and the older ones coalesce into them
      scheduleNext(slot, rules.horizon(now));
      return;
    }
    Instant due = target.get();
    if (FiringRules.isMissed(slot.job.policy().misfireGrace(), due, now)) {
      log.info(
          "firing not run here job={} firing={}: timer {} late, beyond misfire-grace {}",
          slot.job.name(),
          due,
          Durations.human(Duration.between(due, now)),
          Durations.human(slot.job.policy().misfireGrace()));
      feed.apply(
          slot,
          new SlotMachine.NotRun(
              due, Outcome.MISSED, "this node's timer came past its misfire grace"));
    } else {
      feed.apply(slot, new SlotMachine.Due(due));
    }
    scheduleNext(slot, due);
  }
}
