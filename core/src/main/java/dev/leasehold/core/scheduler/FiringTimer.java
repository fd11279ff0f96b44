package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.schedule.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer side: at start, each job's catch-up firing (G9) and its first timer; at each timer,
 * which firing is due (a timer that wakes early waits the rest, a late one coalesces) and the next
 * timer. Nothing polls: one {@link TaskTimer} task per job is pending at a time. Runs on the timer
 * thread and never blocks; due firings go to {@link ClaimLoop#dispatch}.
 */
final class FiringTimer {
  private static final Logger log = LoggerFactory.getLogger(FiringTimer.class);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final ClaimLoop loop;

  FiringTimer(Slots slots, FiringRules rules, SchedulerParts parts, ClaimLoop loop) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.loop = loop;
  }

  /** (lock held) Claims each job's catch-up firing, if any, and sets its first timer. */
  void start() {
    Instant now = parts.clock().instant();
    for (JobSlot slot : slots.all()) {
      rules
          .catchUp(slot.job.schedule(), slot.job.policy().misfireGrace(), now)
          .ifPresent(firing -> loop.dispatch(slot, firing));
      scheduleNext(slot, rules.horizon(now));
    }
  }

  /** (lock held) Sets the timer for the first firing after {@code after}. */
  private void scheduleNext(JobSlot slot, Instant after) {
    Optional<Instant> next = slot.job.schedule().nextAfter(after);
    if (next.isEmpty()) {
      slot.nextFiring(null);
      return;
    }
    Instant firing = next.get();
    Duration delay = Duration.between(parts.clock().instant(), firing);
    slot.nextFiring(parts.timer().schedule(() -> onTimer(slot, firing), delay));
  }

  private void onTimer(JobSlot slot, Instant firing) {
    synchronized (slots.lock()) {
      if (!slots.accepting()) {
        return;
      }
      Instant now = parts.clock().instant();
      if (now.isBefore(firing)) {
        // the wall clock is behind the timer (it was set back, or we woke early): wait the rest
        slot.nextFiring(
            parts.timer().schedule(() -> onTimer(slot, firing), Duration.between(now, firing)));
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
        loop.notRun(slot, due, Outcome.MISSED, "this node's timer came past its misfire grace");
      } else {
        loop.dispatch(slot, due);
      }
      scheduleNext(slot, due);
    }
  }
}
