package dev.leasehold.core.lease.hold;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lease held by this node: renewed every {@code renew-every}, watched by a local deadline, and
 * reported lost once. Made by {@link LeaseHolds}, which checked that the store's answer to the
 * claim or acquisition came back in time; it starts renewing and watching at once.
 *
 * <p><b>Why it is safe (G4, G5).</b> The monotonic time is read before each renewal is sent. A
 * renewal the store confirms within its validity ({@link LeaseTiming#answeredInTime}) moves the
 * deadline to {@link LeaseTiming#validUntil} of that send; nothing else moves it. A timer task
 * fires at the deadline whether or not a renewal call is still hanging, so a store that stops
 * answering cannot keep the lease alive on this node: the holder hears "lost" no later than the TTL
 * minus the margin after the last confirmed send, while the store keeps the lease at least until
 * the TTL after that send. A refusal means the lease expired or was taken (or its job was paused
 * with stop): lost at once. A store error is not a renewal: it is retried at half the interval, and
 * the deadline keeps running. An answer that came too late is not counted either.
 *
 * <p><b>Once.</b> The holder leaves {@link State#HOLDING} exactly once, to {@link State#LOST} or
 * {@link State#RELEASED}; {@link Listener#lost} is called once, outside this object's lock, only on
 * the first. {@link #release} frees the lease by its token (G7), so it cannot free a lease that has
 * passed to someone else; after a loss it does nothing.
 */
public final class LeaseHold {
  private static final Logger log = LoggerFactory.getLogger(LeaseHold.class);

  /** Where a holder stands. */
  public enum State {
    /** Renewing; the lease is presumed valid until the deadline. */
    HOLDING,
    /** Presumed lost: see {@link #loss()}. Final. */
    LOST,
    /** Released (or given up) by its holder. Final. */
    RELEASED
  }

  /** Why a lease is presumed lost. */
  public enum Cause {
    /** The store refused a renewal: the lease expired, was taken, or its job was stopped. */
    REFUSED,
    /** No renewal was confirmed in time before the local deadline passed. */
    DEADLINE_PASSED
  }

  /**
   * How a lease was lost.
   *
   * @param cause why
   * @param detail the same in words, for logs and history
   */
  public record Loss(Cause cause, String detail) {
    public Loss {
      Objects.requireNonNull(cause, "cause");
      Objects.requireNonNull(detail, "detail");
    }
  }

  /**
   * Told what happens to a held lease, on the timer's thread or a worker. Must not block or throw:
   * hand anything slow to another thread.
   */
  public interface Listener {
    /** The lease must be presumed lost; called once, never after {@link #release}. */
    void lost(LeaseHold hold, Loss loss);

    /** A renewal was confirmed in time and moved the deadline. */
    default void renewed(LeaseHold hold) {}

    /** A listener that does nothing (query {@link #state} instead). */
    Listener NONE = (hold, loss) -> {};
  }

  static final String REFUSED_DETAIL = "the store refused the renewal (lease expired or taken)";
  static final String DEADLINE_DETAIL =
      "no renewal reached the store before the lease's presumed expiry";

  private final LeaseHolds parts;
  private final Lease lease;
  private final Duration ttl;
  private final Duration renewEvery;
  private final Listener listener;

  private final Object lock = new Object();
  private long validUntilNanos;
  private State state = State.HOLDING;
  private Loss loss;
  private boolean renewing;
  private Cancellable renewTask;
  private Cancellable expiryTask;

  LeaseHold(LeaseHolds parts, Lease lease, long sentNanos, Duration renewEvery, Listener listener) {
    this.parts = parts;
    this.lease = lease;
    this.ttl = lease.ttl();
    this.renewEvery = renewEvery;
    this.listener = listener == null ? Listener.NONE : listener;
    this.validUntilNanos = LeaseTiming.validUntil(sentNanos, ttl);
    long sinceSent = parts.ticker().nanoTime() - sentNanos;
    synchronized (lock) {
      // the interval counts from the claim's send, like every later one from its renewal's
      scheduleRenewal(
          renewEvery.minusNanos(Math.min(Math.max(0, sinceSent), renewEvery.toNanos())));
      scheduleExpiryCheck();
    }
  }

  /** The lease as granted (its token proves ownership; never log it). */
  public Lease lease() {
    return lease;
  }

  /** The interval between renewals. */
  public Duration renewEvery() {
    return renewEvery;
  }

  public State state() {
    synchronized (lock) {
      return state;
    }
  }

  /** Whether the lease is presumed lost. */
  public boolean lost() {
    return state() == State.LOST;
  }

  /** How the lease was lost, empty while held or after a release. */
  public Optional<Loss> loss() {
    synchronized (lock) {
      return Optional.ofNullable(loss);
    }
  }

  /** How many milliseconds the lease is presumed valid from now; 0 once it is lost or released. */
  public long millisLeft() {
    synchronized (lock) {
      if (state != State.HOLDING) {
        return 0;
      }
      return Math.max(0, (validUntilNanos - parts.ticker().nanoTime()) / 1_000_000);
    }
  }

  /**
   * Stops renewing and frees the lease by its token, on the calling thread (one store call).
   * Idempotent: a second call, or a call after the lease was lost, does nothing and returns false.
   * A store error only logs: the lease then ends by its TTL.
   *
   * @return whether the store freed the lease
   */
  public boolean release() {
    synchronized (lock) {
      if (state != State.HOLDING) {
        return false;
      }
      state = State.RELEASED;
      cancelTasks();
    }
    return LeaseHolds.releaseQuietly(parts.store(), lease);
  }

  private void scheduleRenewal(Duration delay) {
    renewTask = parts.timer().schedule(() -> parts.blocking().execute(this::renewOnce), delay);
  }

  private void scheduleExpiryCheck() {
    long delay = validUntilNanos - parts.ticker().nanoTime();
    expiryTask = parts.timer().schedule(this::checkExpiry, Duration.ofNanos(Math.max(0, delay)));
  }

  private void cancelTasks() {
    if (renewTask != null) {
      renewTask.cancel();
    }
    if (expiryTask != null) {
      expiryTask.cancel();
    }
  }

  private Loss loseLocked(Cause cause, String detail) {
    state = State.LOST;
    loss = new Loss(cause, detail);
    cancelTasks();
    return loss;
  }

  private void renewOnce() {
    synchronized (lock) {
      if (state != State.HOLDING || renewing) {
        return;
      }
      renewing = true;
    }
    long sent = parts.ticker().nanoTime();
    Boolean renewed;
    String error = null;
    try {
      renewed = parts.store().renew(lease, ttl);
    } catch (RuntimeException e) {
      renewed = null;
      error = e.toString();
    }
    long answered = parts.ticker().nanoTime();
    Loss lost = null;
    boolean extended = false;
    long leftMillis;
    synchronized (lock) {
      renewing = false;
      if (state != State.HOLDING) {
        return;
      }
      if (Boolean.TRUE.equals(renewed) && LeaseTiming.answeredInTime(sent, ttl, answered)) {
        validUntilNanos = LeaseTiming.validUntil(sent, ttl);
        expiryTask.cancel();
        scheduleExpiryCheck();
        scheduleRenewal(renewEvery.minusNanos(Math.min(answered - sent, renewEvery.toNanos())));
        extended = true;
      } else if (Boolean.FALSE.equals(renewed)) {
        lost = loseLocked(Cause.REFUSED, REFUSED_DETAIL);
      } else if (answered - validUntilNanos >= 0) {
        // the deadline passed while the call hung; the timer says so too, whichever comes first
        lost = loseLocked(Cause.DEADLINE_PASSED, DEADLINE_DETAIL);
      } else {
        // an error (or an answer too late to count) is no renewal: try again, the deadline runs on
        Duration retry = renewEvery.dividedBy(2);
        scheduleRenewal(retry.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : retry);
        if (error == null) {
          error = "the renewal's answer came too late to count";
        }
      }
      leftMillis = Math.max(0, Duration.ofNanos(validUntilNanos - answered).toMillis());
    }
    if (extended) {
      notify(() -> listener.renewed(this));
    } else if (lost != null) {
      reportLost(lost);
    } else {
      log.warn(
          "renewal failed lease={} fence={}: {}; presumed valid for {} more",
          lease.name(),
          lease.fence(),
          error,
          Durations.human(Duration.ofMillis(leftMillis)));
    }
  }

  private void checkExpiry() {
    Loss lost;
    synchronized (lock) {
      if (state != State.HOLDING) {
        return;
      }
      if (parts.ticker().nanoTime() - validUntilNanos < 0) {
        scheduleExpiryCheck();
        return;
      }
      lost = loseLocked(Cause.DEADLINE_PASSED, DEADLINE_DETAIL);
    }
    reportLost(lost);
  }

  private void reportLost(Loss lost) {
    // the holder logs the loss at warn, with what it stops
    log.debug("lease lost lease={} fence={}: {}", lease.name(), lease.fence(), lost.detail());
    notify(() -> listener.lost(this, lost));
  }

  private void notify(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("a lease listener failed lease={}: {}", lease.name(), e.toString());
    }
  }
}
