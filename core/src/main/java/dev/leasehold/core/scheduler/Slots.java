package dev.leasehold.core.scheduler;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every job's {@link JobSlot} and the one lock that guards them all, with the scheduler's life
 * state: whether it takes new firings, and whether it was stopped.
 */
final class Slots {
  private final Object lock = new Object();
  private final Map<String, JobSlot> byName = new LinkedHashMap<>();
  private final Ticker ticker;
  private boolean accepting;
  private boolean stopped;

  Slots(Collection<JobDefinition> jobs, Ticker ticker) {
    this.ticker = ticker;
    for (JobDefinition job : jobs) {
      byName.put(job.name(), new JobSlot(job));
    }
  }

  Object lock() {
    return lock;
  }

  Collection<JobSlot> all() {
    return byName.values();
  }

  /**
   * @throws IllegalArgumentException for an unknown job, naming the known ones
   */
  JobSlot get(String job) {
    JobSlot slot = byName.get(job);
    if (slot == null) {
      throw new IllegalArgumentException("unknown job '" + job + "'; known: " + byName.keySet());
    }
    return slot;
  }

  /** Caller holds the lock. */
  boolean accepting() {
    return accepting;
  }

  /** Caller holds the lock. */
  void start() {
    if (accepting || stopped) {
      throw new IllegalStateException(stopped ? "scheduler was stopped" : "already started");
    }
    accepting = true;
  }

  /** Caller holds the lock. Returns false when it was stopped already. */
  boolean stop() {
    if (stopped) {
      return false;
    }
    stopped = true;
    accepting = false;
    return true;
  }

  /** Caller holds the lock: wakes {@link #awaitIdle}. */
  void changed() {
    lock.notifyAll();
  }

  /**
   * Caller holds the lock. Waits until no job has a claim or run in flight, or until {@code limit}
   * has passed on the scheduler's ticker.
   */
  void awaitIdle(Duration limit) {
    long end = ticker.nanoTime() + limit.toNanos();
    while (byName.values().stream().anyMatch(JobSlot::busy)) {
      long left = end - ticker.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        lock.wait(Math.max(1, Math.min(left / 1_000_000, 1000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
