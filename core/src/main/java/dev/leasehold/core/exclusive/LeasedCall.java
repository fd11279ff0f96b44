package dev.leasehold.core.exclusive;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.schedule.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a piece of application code under a lease, for the framework integrations (Guice, Spring):
 * either once per firing ({@link #once}: the same claim as the daemon's, through the watermark) or
 * mutually exclusive ({@link #exclusive}: acquire, no watermark).
 *
 * <p>Why it is safe: the lease is taken in one atomic step on the store ({@code claim} or {@code
 * acquire}), so two replicas cannot both get it, and with {@code claim} a firing whose watermark
 * was already reached is refused, so a late replica cannot run it again (G1, G2). While the code
 * runs the lease is renewed every ttl/3; when a renewal fails (the lease expired and may be taken,
 * or the store cannot be reached) the running thread is interrupted at once, since another replica
 * may now run it (G5). The lease is released by token, so a late release cannot free another
 * holder's lease (G7); release keeps the watermark and the fence. A store that cannot be asked
 * means "not acquired" (fail closed, G8).
 */
public final class LeasedCall {
  private static final Logger log = LoggerFactory.getLogger(LeasedCall.class);
  private static final ScheduledExecutorService RENEWALS =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "leasehold-call-renew");
            t.setDaemon(true);
            return t;
          });

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

  private final LeaseStore store;
  private final String holder;
  private final Listener listener;
  private final Clock clock;

  public LeasedCall(LeaseStore store, String holder, Listener listener) {
    this(store, holder, listener, Clock.systemUTC());
  }

  /** With the clock that says how late a firing is (the caller's, which chose the firing). */
  public LeasedCall(LeaseStore store, String holder, Listener listener, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
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
    long start = System.nanoTime();
    ClaimResult claim;
    while (true) {
      try {
        claim = store.tryClaim(name, firing, holder, ttl);
      } catch (LeaseStoreException e) {
        log.warn("skipped {} at {}: store unreachable ({})", name, firing, e.getMessage());
        return skipped(name, Outcome.STORE_FAILED, start);
      }
      if (claim.kind() != ClaimResult.Kind.HELD
          || Duration.between(firing, clock.instant()).compareTo(HELD_PATIENCE) > 0) {
        break;
      }
      log.debug("claim of {} at {} waits: {}", name, firing, claim);
      try {
        Thread.sleep(HELD_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (!claim.won()) {
      Outcome why =
          claim.kind() == ClaimResult.Kind.ALREADY_RUN ? Outcome.ALREADY_RUN : Outcome.HELD;
      log.debug("skipped {} at {}: {}", name, firing, claim);
      return skipped(name, why, start);
    }
    return run(claim.lease(), firing, ttl, body, start);
  }

  /** Acquires the lease {@code name} (mutual exclusion, no watermark) and runs {@code body}. */
  public <T> Result<T> exclusive(String name, Duration ttl, Body<T> body) throws Throwable {
    LeaseNames.require(name);
    long start = System.nanoTime();
    Optional<Lease> lease;
    try {
      lease = store.acquire(name, holder, ttl);
    } catch (LeaseStoreException e) {
      log.warn("skipped {}: store unreachable ({})", name, e.getMessage());
      return skipped(name, Outcome.STORE_FAILED, start);
    }
    if (lease.isEmpty()) {
      log.debug("skipped {}: the lease is held elsewhere", name);
      return skipped(name, Outcome.HELD, start);
    }
    return run(lease.get(), null, ttl, body, start);
  }

  private <T> Result<T> skipped(String name, Outcome outcome, long start) {
    listener.finished(name, outcome, Duration.ofNanos(System.nanoTime() - start));
    return new Result<>(outcome, null);
  }

  private <T> Result<T> run(Lease lease, Instant firing, Duration ttl, Body<T> body, long start)
      throws Throwable {
    Thread caller = Thread.currentThread();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicBoolean lost = new AtomicBoolean(false);
    long period = LeaseDefaults.renewEvery(ttl).toMillis();
    ScheduledFuture<?> renewal =
        RENEWALS.scheduleAtFixedRate(
            () -> renew(lease, ttl, caller, running, lost), period, period, TimeUnit.MILLISECONDS);
    FiringContext before =
        CurrentFiring.swap(new FiringContext(lease.name(), firing, lease.fence(), holder));
    Outcome outcome = Outcome.RAN;
    try {
      T value = body.call();
      return new Result<>(lost.get() ? Outcome.LOST : Outcome.RAN, value);
    } finally {
      CurrentFiring.swap(before);
      synchronized (running) {
        running.set(false); // no interrupt may reach the caller after this point
      }
      renewal.cancel(false);
      if (lost.get()) {
        outcome = Outcome.LOST;
        // the interrupt was ours: a method that ignored it must not leave it to the caller's
        // thread (a scheduler's worker), where it would cut short whatever runs next
        Thread.interrupted();
      } else {
        release(lease, ttl);
      }
      listener.finished(lease.name(), outcome, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private void release(Lease lease, Duration ttl) {
    try {
      store.release(lease);
    } catch (LeaseStoreException e) {
      log.warn(
          "could not release {} ({}); it expires after {}",
          lease.name(),
          e.getMessage(),
          Durations.human(ttl));
    }
  }

  private void renew(
      Lease lease, Duration ttl, Thread caller, AtomicBoolean running, AtomicBoolean lost) {
    boolean renewed;
    try {
      renewed = store.renew(lease, ttl);
    } catch (LeaseStoreException e) {
      renewed = false;
    }
    if (!renewed) {
      synchronized (running) {
        if (running.get()) {
          lost.set(true);
          log.warn("lease {} lost while its method runs; interrupting it", lease.name());
          caller.interrupt();
        }
      }
      throw new IllegalStateException("lease lost"); // ends this periodic renewal
    }
  }
}
