package dev.leasehold.core.job;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

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
  private final long upstreamFence;
  private final AtomicReference<StopReason> stop = new AtomicReference<>();
  private final List<Runnable> stopListeners = new CopyOnWriteArrayList<>();
  private final List<Runnable> renewalListeners = new CopyOnWriteArrayList<>();
  private volatile LongSupplier leaseMillisLeft;

  public JobContext(
      String job,
      Instant firing,
      long fence,
      String node,
      int attempt,
      TriggerKind trigger,
      Instant deadline) {
    this(job, firing, fence, node, attempt, trigger, deadline, 0);
  }

  /**
   * A context of a run that follows a run of its upstream job ({@link TriggerKind#AFTER}), whose
   * lease had the fence {@code upstreamFence} (0 for none).
   */
  public JobContext(
      String job,
      Instant firing,
      long fence,
      String node,
      int attempt,
      TriggerKind trigger,
      Instant deadline,
      long upstreamFence) {
    this.upstreamFence = upstreamFence;
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

  /**
   * Which run of the firing this is: 1 for the first, 2 for the first retry after a failed or
   * timed-out run (the job's retry policy), and so on.
   */
  public int attempt() {
    return attempt;
  }

  public TriggerKind trigger() {
    return trigger;
  }

  /** For a run after its upstream's run ({@code after:}): the fence of the upstream run's lease. */
  public OptionalLong upstreamFence() {
    return upstreamFence > 0 ? OptionalLong.of(upstreamFence) : OptionalLong.empty();
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

  /**
   * How many more milliseconds the lease is presumed valid, measured at this call: from the last
   * confirmed claim or renewal, counted from when it was sent, less the safety margin; 0 once it
   * ran out. Empty when the scheduler does not say (a context made by hand). A runner that can
   * enforce the lease outside this process (so that the job stops even if this process stalls or
   * dies) reads it when the job starts and after each {@link #onLeaseRenewed renewal}.
   */
  public OptionalLong leaseMillisLeft() {
    LongSupplier left = leaseMillisLeft;
    return left == null ? OptionalLong.empty() : OptionalLong.of(Math.max(0, left.getAsLong()));
  }

  /** Runs {@code listener} after each confirmed renewal of the lease; it must not block. */
  public void onLeaseRenewed(Runnable listener) {
    renewalListeners.add(listener);
  }

  /** Called by the scheduler before the job starts: how to measure the lease's validity. */
  public void leaseValidity(LongSupplier millisLeft) {
    this.leaseMillisLeft = Objects.requireNonNull(millisLeft);
  }

  /** Called by the scheduler after each confirmed renewal. */
  public void leaseRenewed() {
    for (Runnable listener : renewalListeners) {
      listener.run();
    }
  }
}
