package dev.leasehold.core.exclusive;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.hold.LeaseHold;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.lease.hold.LeaseTiming;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a piece of application code under a lease, for the framework integrations (Guice, Spring):
 * either once per firing ({@link #once}: the same claim as the daemon's, through the watermark) or
 * mutually exclusive ({@link #exclusive}: acquire, no watermark).
 *
 * <p>Why it is safe: the lease is taken in one atomic step on the store ({@code claim} or {@code
 * acquire}), so two replicas cannot both get it, and with {@code claim} a firing whose watermark
 * was already reached is refused, so a late replica cannot run it again (G1, G2). The lease is
 * taken and held through {@link LeaseHolds}, as the daemon holds its runs' leases: an answer that
 * came back after the lease's validity (counted from the send) runs nothing; while the code runs
 * the lease is renewed every ttl/3 ({@link LeaseTiming#defaultRenewEvery}) and watched by a local
 * deadline, so the running thread is interrupted the moment the store refuses a renewal or no
 * renewal was confirmed in time, even while a renewal call still hangs (G4, G5). The lease is
 * released by token, so a late release cannot free another holder's lease (G7); release keeps the
 * watermark and the fence. A store that cannot be asked means "not acquired" (fail closed, G8).
 */
public final class LeasedCall implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeasedCall.class);

  /** The code to run; may throw anything, which reaches the caller unchanged. */
  @FunctionalInterface
  public interface Body<T> {
    T call() throws Throwable;
  }

  /** How a call ended. */
  public enum Outcome {
    /** The lease was won and the code ran (whether it returned or threw). */
    RAN,
    /** Refused: another replica holds the lease. */
    HELD,
    /** Refused: this firing was already claimed (by another replica, or earlier). */
    ALREADY_RUN,
    /** The store could not be asked: not run (fail closed). */
    STORE_FAILED,
    /** The code ran but its lease was lost while it ran; its thread was interrupted. */
    LOST
  }

  /** Told about every call, e.g. to count them as metrics. Must not throw or block. */
  @FunctionalInterface
  public interface Listener {
    void finished(String name, Outcome outcome, Duration took);
  }

  /**
   * The answer of one call.
   *
   * @param outcome how it ended
   * @param value what the code returned, {@code null} when it did not run
   */
  public record Result<T>(Outcome outcome, T value) {
    public boolean ran() {
      return outcome == Outcome.RAN || outcome == Outcome.LOST;
    }
  }

  /**
   * How long past its firing (on the caller's clock) a claim refused because a run of an earlier
   * firing still holds the lease is tried again, every {@link #HELD_POLL}, as the daemon does: a
   * short overlap (the previous run ends just after this firing is due, or this replica's clock
   * runs ahead) then delays the firing instead of losing it on this replica.
   */
  public static final Duration HELD_PATIENCE = Duration.ofSeconds(2);

  static final Duration HELD_POLL = Duration.ofMillis(100);

  private final LeaseHolds holds;
  private final boolean ownsHolds;
  private final String holder;
  private final Listener listener;
  private final Clock clock;

  /** With its own timer and renewal threads (daemons), ended by {@link #close}. */
  public LeasedCall(LeaseStore store, String holder, Listener listener) {
    this(store, holder, listener, Clock.systemUTC());
  }

  /** With the clock that says how late a firing is (the caller's, which chose the firing). */
  public LeasedCall(LeaseStore store, String holder, Listener listener, Clock clock) {
    this(
        LeaseHolds.system(checked(store, holder, clock), "leasehold-call"),
        true,
        holder,
        listener,
        clock);
  }

  /**
   * On {@code holds}: the store, timer, ticker and renewal threads of the caller's choosing (a test
   * passes virtual time); {@link #close} leaves them alone.
   */
  public LeasedCall(LeaseHolds holds, String holder, Listener listener, Clock clock) {
    this(holds, false, holder, listener, clock);
  }

  /** {@code store}, once every argument was checked: no thread starts for a call refused. */
  private static LeaseStore checked(LeaseStore store, String holder, Clock clock) {
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(clock, "clock");
    return Objects.requireNonNull(store, "store");
  }

  private LeasedCall(
      LeaseHolds holds, boolean ownsHolds, String holder, Listener listener, Clock clock) {
    this.holds = Objects.requireNonNull(holds, "holds");
    this.ownsHolds = ownsHolds;
    this.holder = Objects.requireNonNull(holder, "holder");
    this.listener = listener == null ? (n, o, t) -> {} : listener;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The lease time to live of {@code text} (e.g. {@code 30s}), at least 3 ms. */
  public static Duration ttl(String text, Object where) {
    Duration ttl = Durations.parse(text);
    if (ttl.toMillis() < 3) {
      throw new IllegalArgumentException("ttl must be at least 3ms, got " + text + ": " + where);
    }
    return ttl;
  }

  /**
   * Claims {@code firing} of {@code name} (lease and watermark, as the daemon does) and runs {@code
   * body} only when the claim was won. While a run of an earlier firing holds the lease the claim
   * is tried again until {@link #HELD_PATIENCE} after the firing.
   */
  public <T> Result<T> once(String name, Instant firing, Duration ttl, Body<T> body)
      throws Throwable {
    LeaseNames.require(name);
    Objects.requireNonNull(firing, "firing");
    long start = ticker().nanoTime();
    Guard guard = new Guard(name);
    LeaseHolds.Taken taken;
    while (true) {
      try {
        taken = holds.claim(name, firing, holder, ttl, null, guard);
      } catch (LeaseStoreException e) {
        log.warn("skipped {} at {}: store unreachable ({})", name, firing, e.getMessage());
        return skipped(name, Outcome.STORE_FAILED, start);
      }
      if (taken.answer().kind() != ClaimResult.Kind.HELD
          || Duration.between(firing, clock.instant()).compareTo(HELD_PATIENCE) > 0) {
        break;
      }
      log.debug("claim of {} at {} waits: {}", name, firing, taken.answer());
      try {
        Thread.sleep(HELD_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (taken.late()) {
      log.warn(
          "skipped {} at {}: the store's answer came after the lease's validity had passed",
          name,
          firing);
      return skipped(name, Outcome.STORE_FAILED, start);
    }
    if (!taken.held()) {
      Outcome why =
          taken.answer().kind() == ClaimResult.Kind.ALREADY_RUN
              ? Outcome.ALREADY_RUN
              : Outcome.HELD;
      log.debug("skipped {} at {}: {}", name, firing, taken.answer());
      return skipped(name, why, start);
    }
    return run(taken.hold(), guard, firing, body, start);
  }

  /** Acquires the lease {@code name} (mutual exclusion, no watermark) and runs {@code body}. */
  public <T> Result<T> exclusive(String name, Duration ttl, Body<T> body) throws Throwable {
    LeaseNames.require(name);
    long start = ticker().nanoTime();
    Guard guard = new Guard(name);
    LeaseHolds.Taken taken;
    try {
      taken = holds.acquire(name, holder, ttl, null, guard);
    } catch (LeaseStoreException e) {
      log.warn("skipped {}: store unreachable ({})", name, e.getMessage());
      return skipped(name, Outcome.STORE_FAILED, start);
    }
    if (taken.late()) {
      log.warn("skipped {}: the store's answer came after the lease's validity had passed", name);
      return skipped(name, Outcome.STORE_FAILED, start);
    }
    if (!taken.held()) {
      log.debug("skipped {}: the lease is held elsewhere", name);
      return skipped(name, Outcome.HELD, start);
    }
    return run(taken.hold(), guard, null, body, start);
  }

  /** Ends the timer and renewal threads this call made (none when it was given its holds). */
  @Override
  public void close() {
    if (ownsHolds) {
      holds.close();
    }
  }

  private Ticker ticker() {
    return holds.ticker();
  }

  private <T> Result<T> skipped(String name, Outcome outcome, long start) {
    listener.finished(name, outcome, Duration.ofNanos(ticker().nanoTime() - start));
    return new Result<>(outcome, null);
  }

  private <T> Result<T> run(LeaseHold hold, Guard guard, Instant firing, Body<T> body, long start)
      throws Throwable {
    String name = hold.lease().name();
    FiringContext before =
        CurrentFiring.swap(new FiringContext(name, firing, hold.lease().fence(), holder));
    T value;
    Outcome outcome;
    try {
      value = body.call();
    } finally {
      CurrentFiring.swap(before);
      boolean lost = guard.end(); // no interrupt may reach the caller after this point
      if (lost) {
        // the interrupt was ours: a method that ignored it must not leave it to the caller's
        // thread (a scheduler's worker), where it would cut short whatever runs next
        Thread.interrupted();
      }
      hold.release(); // by token; nothing after a loss
      outcome = lost ? Outcome.LOST : Outcome.RAN;
      listener.finished(name, outcome, Duration.ofNanos(ticker().nanoTime() - start));
    }
    return new Result<>(outcome, value);
  }

  /**
   * Interrupts the thread that took the lease when its hold is lost, until the call ends. Made on
   * that thread, before the lease is taken: a loss between the claim and the body leaves the body
   * starting interrupted.
   */
  private static final class Guard implements LeaseHold.Listener {
    private final Thread caller = Thread.currentThread();
    private final String name;
    private boolean running = true;
    private boolean lost;

    Guard(String name) {
      this.name = name;
    }

    @Override
    public synchronized void lost(LeaseHold hold, LeaseHold.Loss loss) {
      if (!running) {
        return;
      }
      lost = true;
      log.warn("lease {} lost while its method runs ({}); interrupting it", name, loss.detail());
      caller.interrupt();
    }

    /** The call ends: whether its lease was lost while it ran. */
    synchronized boolean end() {
      running = false;
      return lost;
    }
  }
}
