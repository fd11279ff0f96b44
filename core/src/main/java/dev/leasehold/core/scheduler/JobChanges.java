package dev.leasehold.core.scheduler;

import java.util.List;

/**
 * What {@link Scheduler#replaceJobs} did: the jobs added, removed and changed, by name, in the
 * order the new job list (added, changed) or the old one (removed) has them.
 */
public record JobChanges(List<String> added, List<String> removed, List<String> changed) {
  public JobChanges {
    added = List.copyOf(added);
    removed = List.copyOf(removed);
    changed = List.copyOf(changed);
  }

  /** Whether nothing changed. */
  public boolean isEmpty() {
    return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
  }
}
