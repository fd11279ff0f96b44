package dev.leasehold.core.scheduler;

import dev.leasehold.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Every job's {@link JobSlot}, with the scheduler's life state: whether it takes new firings, and
 * whether it was stopped. Owned by the {@link SlotOwner}: only events change it. The set of jobs
 * changes only in events ({@link #add}, {@link #retire}: a reload). Every method checks that it
 * runs inside the owner; another thread asks through {@link #read}, which runs its question as an
 * event.
 *
 * <p>A retired slot (its job was removed by a reload) leaves {@link #all} at once but is kept, in
 * {@link #withRetired}, until its claim or run in flight has ended: a stop still waits for it and
 * stops it, and its lease is released as usual.
 */
final class Slots {
  private final SlotOwner owner;
  private final Ticker ticker;
  private Map<String, JobSlot> byName;
  private final List<JobSlot> retired = new ArrayList<>();
  private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
  private boolean accepting;
  private boolean stopped;

  Slots(Collection<JobDefinition> jobs, SlotOwner owner, Ticker ticker) {
    this.owner = owner;
    this.ticker = ticker;
    Map<String, JobSlot> slots = new LinkedHashMap<>();
    for (JobDefinition job : jobs) {
      slots.put(job.name(), new JobSlot(job, owner));
    }
    this.byName = Collections.unmodifiableMap(slots);
  }

  SlotOwner owner() {
    return owner;
  }

  /** Any thread: {@code question} answered inside the owner (at once when already inside). */
  <T> T read(Supplier<T> question) {
    return owner.owns() ? question.get() : owner.call(question);
  }

  /** Event: the slots of the jobs (the retired ones not). */
  Collection<JobSlot> all() {
    owner.check();
    return byName.values();
  }

  /** Event: every slot, the retired ones still busy included. */
  List<JobSlot> withRetired() {
    owner.check();
    List<JobSlot> every = new ArrayList<>(byName.values());
    every.addAll(retired);
    return every;
  }

  /** Event: a job joins (reload). */
  void add(JobSlot slot) {
    owner.check();
    Map<String, JobSlot> next = new LinkedHashMap<>(byName);
    if (next.putIfAbsent(slot.job.name(), slot) != null) {
      throw new IllegalArgumentException("duplicate job name '" + slot.job.name() + "'");
    }
    byName = Collections.unmodifiableMap(next);
  }

  /**
   * Event: a job leaves (reload): its slot is retired, takes no firing from now on, and is kept
   * until what it has in flight has ended.
   */
  JobSlot retire(String job) {
    owner.check();
    JobSlot slot = get(job);
    Map<String, JobSlot> next = new LinkedHashMap<>(byName);
    next.remove(job);
    byName = Collections.unmodifiableMap(next);
    slot.retire();
    if (slot.inFlight()) {
      retired.add(slot);
    }
    return slot;
  }

  /** Whether {@code slot} takes new firings: the scheduler does and the job was not removed. */
  boolean accepting(JobSlot slot) {
    return accepting() && !slot.retired();
  }

  /**
   * @throws IllegalArgumentException for an unknown job, naming the known ones
   */
  JobSlot get(String job) {
    JobSlot slot = find(job);
    if (slot == null) {
      throw new IllegalArgumentException("unknown job '" + job + "'; known: " + byName.keySet());
    }
    return slot;
  }

  /** Event: the slot of {@code job}, or null when no job has that name. */
  JobSlot find(String job) {
    owner.check();
    return byName.get(job);
  }

  /** Event: whether new firings are taken: after start, until stop. */
  boolean accepting() {
    owner.check();
    return accepting;
  }

  /** Event. */
  void start() {
    owner.check();
    if (accepting || stopped) {
      throw new IllegalStateException(stopped ? "scheduler was stopped" : "already started");
    }
    accepting = true;
  }

  /** Event. Returns false when it was stopped already. */
  boolean stop() {
    owner.check();
    if (stopped) {
      return false;
    }
    stopped = true;
    accepting = false;
    return true;
  }

  /** Event: completes when no job has a claim or run in flight (at once if none has). */
  CompletableFuture<Void> whenIdle() {
    owner.check();
    CompletableFuture<Void> idle = new CompletableFuture<>();
    idleWaiters.add(idle);
    changed();
    return idle;
  }

  /** Event, after a slot went idle: completes {@link #whenIdle} once every slot is idle. */
  void changed() {
    owner.check();
    retired.removeIf(slot -> !slot.inFlight());
    if (!idleWaiters.isEmpty() && withRetired().stream().noneMatch(JobSlot::inFlight)) {
      idleWaiters.forEach(w -> w.complete(null));
      idleWaiters.clear();
    }
  }

  /**
   * Outside the owner: waits until no job has a claim or run in flight, or until {@code limit} has
   * passed on the scheduler's ticker.
   */
  void awaitIdle(Duration limit) {
    CompletableFuture<Void> idle = owner.call(this::whenIdle);
    long end = ticker.nanoTime() + limit.toNanos();
    while (!idle.isDone()) {
      long left = end - ticker.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        idle.get(Math.max(1, Math.min(left / 1_000_000, 1000)), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // the ticker decides when the limit has passed (virtual in tests)
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException e) {
        return;
      }
    }
  }
}
