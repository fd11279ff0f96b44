package dev.leasehold.core.scheduler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A reload of the job set, as one event of the {@link SlotOwner} (so no firing, claim answer or
 * ended run interleaves with it):
 *
 * <ul>
 *   <li>an added job gets a slot and its first timer for its first firing after now (nothing from
 *       before the reload is caught up);
 *   <li>a removed job's slot is retired ({@link Slots#retire}): its timers and queued firings are
 *       called off, and a claim or run in flight ends as usual and releases its lease;
 *   <li>a changed job's slot takes the new definition ({@link JobSlot#replace}) for its next claim;
 *       a run in flight keeps the old one. A changed schedule sets the timer anew from now.
 * </ul>
 *
 * Everything is checked before anything changes: a bad list changes nothing.
 */
final class JobSetChange {
  private final Slots slots;
  private final FiringTimer firingTimer;
  private final SlotMachine.Feed feed;

  JobSetChange(Slots slots, FiringTimer firingTimer, SlotMachine.Feed feed) {
    this.slots = slots;
    this.firingTimer = firingTimer;
    this.feed = feed;
  }

  /**
   * Event: makes {@code jobs} the job set. A job in both sets is replaced when its name is in
   * {@code changed} (the caller knows what its runners do), or when its schedule or policy differ;
   * else it is left as it is.
   *
   * @throws IllegalArgumentException for a duplicate name; nothing changed
   * @throws IllegalStateException when the scheduler is not running; nothing changed
   */
  JobChanges apply(Collection<JobDefinition> jobs, Set<String> changed) {
    if (!slots.accepting()) {
      throw new IllegalStateException("the scheduler is not running");
    }
    Map<String, JobDefinition> next = new LinkedHashMap<>();
    for (JobDefinition job : jobs) {
      if (next.putIfAbsent(job.name(), job) != null) {
        throw new IllegalArgumentException("duplicate job name '" + job.name() + "'");
      }
    }
    Set<String> current = new HashSet<>();
    List<String> removed = new ArrayList<>();
    for (JobSlot slot : slots.all()) {
      current.add(slot.job.name());
      if (!next.containsKey(slot.job.name())) {
        removed.add(slot.job.name());
      }
    }
    List<String> added = new ArrayList<>();
    List<String> replaced = new ArrayList<>();
    for (String name : removed) {
      JobSlot slot = slots.retire(name);
      if (slot.phase() == JobSlot.Phase.BACKING_OFF
          || slot.phase() == JobSlot.Phase.WAITING_FOR_LEASE) {
        feed.apply(slot, new SlotMachine.Stopped()); // its timer was called off
      }
    }
    for (JobDefinition job : next.values()) {
      if (!current.contains(job.name())) {
        JobSlot slot = new JobSlot(job, slots.owner());
        slots.add(slot);
        firingTimer.fromNow(slot);
        added.add(job.name());
        continue;
      }
      JobSlot slot = slots.get(job.name());
      JobDefinition old = slot.job;
      boolean newSchedule = !old.schedule().equals(job.schedule());
      if (newSchedule || !old.policy().equals(job.policy()) || changed.contains(job.name())) {
        slot.replace(job);
        if (newSchedule) {
          firingTimer.fromNow(slot);
        }
        replaced.add(job.name());
      }
    }
    slots.changed();
    return new JobChanges(added, removed, replaced);
  }
}
