package dev.leasehold.core.job;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a running job knows about its execution. The scheduler stops a job by setting a {@link
 * StopReason} here and interrupting the job's thread; a job that does not block interruptibly
 * should poll {@link #stopRequested()} or register {@link #onStop(Runnable)}.
 */
public final class JobContext {
  private final String job;
  private final Instant firing;
  private final long fence;
  private final String node;
  private final int attempt;
  private final TriggerKind trigger;
  private final Instant deadline;
  private final AtomicReference<StopReason> stop = new AtomicReference<>();
  private final List<Runnable> stopListeners = new CopyOnWriteArrayList<>();

  public JobContext(
      String job,
      Instant firing,
      long fence,
      String node,
      int attempt,
      TriggerKind trigger,
      Instant deadline) {
    this.job = Objects.requireNonNull(job, "job");
    this.firing = Objects.requireNonNull(firing, "firing");
    this.fence = fence;
    this.node = Objects.requireNonNull(node, "node");
    this.attempt = attempt;
    this.trigger = Objects.requireNonNull(trigger, "trigger");
    this.deadline = deadline;
  }

  public String job() {
    return job;
  }

  /** The scheduled instant of this firing (for a manual trigger: when it was triggered). */
  public Instant firing() {
    return firing;
  }

  /** The fencing token of the lease this execution holds (G6). */
  public long fence() {
    return fence;
  }

  public String node() {
    return node;
  }

  /** 1 for the first claim attempt of a firing; higher when the store had to be retried. */
  public int attempt() {
    return attempt;
  }

  public TriggerKind trigger() {
    return trigger;
  }

  /** When the job's {@code timeout} runs out (wall clock of this node), if it has one. */
  public Optional<Instant> deadline() {
    return Optional.ofNullable(deadline);
  }

  /** True once the lease was lost: the job must stop at once, someone else may run now. */
  public boolean leaseLost() {
    return stop.get() == StopReason.LEASE_LOST;
  }

  public boolean stopRequested() {
    return stop.get() != null;
  }

  public Optional<StopReason> stopReason() {
    return Optional.ofNullable(stop.get());
  }

  /** Runs {@code listener} when the job is asked to stop (at once if it already was). */
  public void onStop(Runnable listener) {
    stopListeners.add(listener);
    if (stop.get() != null) {
      listener.run();
    }
  }

  /**
   * Asks the job to stop; the first reason wins. Returns whether this call set the reason. Called
   * by the scheduler; the scheduler also interrupts the job's thread.
   */
  public boolean requestStop(StopReason reason) {
    if (!stop.compareAndSet(null, Objects.requireNonNull(reason))) {
      return false;
    }
    for (Runnable listener : stopListeners) {
      listener.run();
    }
    return true;
  }
}
