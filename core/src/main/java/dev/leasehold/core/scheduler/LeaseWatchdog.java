package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.hold.LeaseTiming;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lease for as long as its job runs, and says when it must be presumed lost (G4, G5).
 *
 * <p><b>Validity.</b> The monotonic time is taken before each claim or renewal is sent. When the
 * store confirms, the lease is valid until that instant plus the TTL minus a safety margin (a tenth
 * of the TTL, for rate differences between this node's clock and the store's): the store started
 * its TTL no earlier than the request was sent. An answer that arrives after that validity has
 * passed confers nothing: a late claim answer never starts a job ({@link #answeredInTime}), a late
 * renewal answer never extends the lease and counts as a loss.
 *
 * <p><b>Watchdog.</b> Renewals every {@code renew-every} (counted from each send) on the workers; a
 * refused renewal is a loss at once; a renewal that cannot reach the store is retried at half the
 * interval; an expiry check fires on the timer when the validity ends, whether or not a renewal
 * call is still hanging. A loss is reported once, to the callback given at construction, outside
 * this object's lock.
 */
final class LeaseWatchdog {
  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

  private final Lease lease;
  private final Duration ttl;
  private final Duration renewEvery;
  private final SchedulerParts parts;
  private final Consumer<String> onLost;
  private final Runnable onRenewed;

  private final Object lock = new Object();
  private long validUntilNanos;
  private boolean stopped;
  private boolean lost;
  private boolean renewing;
  private Cancellable renewTask;
  private Cancellable expiryTask;

  /**
   * @param sentNanos the ticker's reading just before the claim or acquisition was sent
   * @param onLost told why, once, when the lease must be presumed lost
   * @param onRenewed told after each renewal that extended the validity, outside the lock
   */
  LeaseWatchdog(
      Lease lease,
      Duration renewEvery,
      long sentNanos,
      SchedulerParts parts,
      Consumer<String> onLost,
      Runnable onRenewed) {
    this.lease = lease;
    this.ttl = lease.ttl();
    this.renewEvery = renewEvery;
    this.parts = parts;
    this.onLost = onLost;
    this.onRenewed = onRenewed;
    this.validUntilNanos = validUntil(sentNanos, ttl);
  }

  /** The rule of {@link LeaseTiming#validUntil}. */
  static long validUntil(long sentNanos, Duration ttl) {
    return LeaseTiming.validUntil(sentNanos, ttl);
  }

  /** The rule of {@link LeaseTiming#answeredInTime}. */
  static boolean answeredInTime(long sentNanos, Duration ttl, long nowNanos) {
    return LeaseTiming.answeredInTime(sentNanos, ttl, nowNanos);
  }

  /** How many milliseconds the lease is presumed valid from now; 0 once it is lost or ran out. */
  long millisLeft() {
    synchronized (lock) {
      if (lost) {
        return 0;
      }
      return Math.max(0, (validUntilNanos - parts.ticker().nanoTime()) / 1_000_000);
    }
  }

  /** Starts renewing and watching. */
  void start() {
    synchronized (lock) {
      scheduleRenewal(renewEvery);
      scheduleExpiryCheck();
    }
  }

  /** No more renewals or checks; the lease is the caller's to release. */
  void stop() {
    synchronized (lock) {
      stopped = true;
      cancel(renewTask);
      cancel(expiryTask);
    }
  }

  private void scheduleRenewal(Duration delay) {
    renewTask = parts.timer().schedule(() -> parts.workers().execute(this::renewOnce), delay);
  }

  private void scheduleExpiryCheck() {
    long delay = validUntilNanos - parts.ticker().nanoTime();
    expiryTask = parts.timer().schedule(this::checkExpiry, Duration.ofNanos(Math.max(0, delay)));
  }

  private void renewOnce() {
    synchronized (lock) {
      if (stopped || lost || renewing) {
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
    String lostWhy = null;
    boolean extended = false;
    long leftMillis;
    synchronized (lock) {
      renewing = false;
      if (stopped || lost) {
        return;
      }
      if (Boolean.TRUE.equals(renewed)) {
        if (answeredInTime(sent, ttl, answered)) {
          validUntilNanos = validUntil(sent, ttl);
          cancel(expiryTask);
          scheduleExpiryCheck();
          // the interval counts from the send, so a slow store does not stretch it
          scheduleRenewal(renewEvery.minusNanos(Math.min(answered - sent, renewEvery.toNanos())));
          extended = true;
        } else {
          lostWhy = "the renewal's answer came after the lease's validity had passed";
        }
      } else if (Boolean.FALSE.equals(renewed)) {
        lostWhy = "the store refused the renewal (lease expired or taken)";
      }
      if (lostWhy != null) {
        lost = true;
        cancel(expiryTask);
      } else if (!extended) {
        Duration retry = renewEvery.dividedBy(2);
        scheduleRenewal(retry.isZero() ? Duration.ofMillis(1) : retry);
      }
      leftMillis = Math.max(0, Duration.ofNanos(validUntilNanos - answered).toMillis());
    }
    if (extended) {
      onRenewed.run();
      return;
    }
    if (lostWhy != null) {
      onLost.accept(lostWhy);
      return;
    }
    log.warn(
        "renewal failed job={} fence={}: {}; lease presumed valid for {} more",
        lease.name(),
        lease.fence(),
        error,
        Durations.human(Duration.ofMillis(leftMillis)));
  }

  private void checkExpiry() {
    synchronized (lock) {
      if (stopped || lost) {
        return;
      }
      if (parts.ticker().nanoTime() - validUntilNanos < 0) {
        scheduleExpiryCheck();
        return;
      }
      lost = true;
      cancel(renewTask);
    }
    onLost.accept("no renewal reached the store before the lease's presumed expiry");
  }

  private static void cancel(Cancellable task) {
    if (task != null) {
      task.cancel();
    }
  }
}
