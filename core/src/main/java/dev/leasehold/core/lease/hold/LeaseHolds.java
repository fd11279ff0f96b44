package dev.leasehold.core.lease.hold;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.time.TaskTimer;
import dev.leasehold.core.time.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way to take and hold a lease: every holder (scheduled and manual runs, the notifier, the
 * Spring and Guice calls) takes its lease here and holds it as a {@link LeaseHold}.
 *
 * <p>Taking sends the claim or acquisition on the calling thread, reading the monotonic {@link
 * Ticker} just before; a won lease whose answer came back after its validity ({@link
 * LeaseTiming#answeredInTime}) is not held: it is released by its token and reported {@link
 * Taken#late()}, since by then another node may hold it. Holding renews on {@code blocking} (store
 * calls may hang) at the times the {@link TaskTimer} says; the timer itself never blocks.
 *
 * <p>Store errors while taking are thrown as the store throws them ({@link LeaseStoreException}):
 * the caller treats them as not taken (fail closed, G8).
 */
public final class LeaseHolds implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseHolds.class);

  private final LeaseStore store;
  private final TaskTimer timer;
  private final Ticker ticker;
  private final Executor blocking;
  private final Runnable onClose;

  /**
   * @param store where leases are taken, renewed and released
   * @param timer says when to renew and when the deadline passes; its tasks must not block
   * @param ticker the monotonic clock every validity is measured on
   * @param blocking runs the renewals (blocking store calls)
   */
  public LeaseHolds(LeaseStore store, TaskTimer timer, Ticker ticker, Executor blocking) {
    this(store, timer, ticker, blocking, () -> {});
  }

  private LeaseHolds(
      LeaseStore store, TaskTimer timer, Ticker ticker, Executor blocking, Runnable onClose) {
    this.store = Objects.requireNonNull(store, "store");
    this.timer = Objects.requireNonNull(timer, "timer");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.blocking = Objects.requireNonNull(blocking, "blocking");
    this.onClose = onClose;
  }

  /**
   * Holders on their own threads, for code outside a scheduler: one timer thread and renewal
   * threads made as needed (ended after a minute idle), all daemons named after {@code name};
   * {@link #close} ends them.
   */
  public static LeaseHolds system(LeaseStore store, String name) {
    TaskTimer timer = TaskTimer.system(name + "-timer");
    ThreadPoolExecutor renewals =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, name + "-renew");
              t.setDaemon(true);
              return t;
            });
    return new LeaseHolds(store, timer, Ticker.system(), renewals, () -> shutdown(timer, renewals));
  }

  private static void shutdown(TaskTimer timer, ExecutorService renewals) {
    timer.close();
    renewals.shutdownNow();
  }

  /**
   * The answer to one attempt to take a lease.
   *
   * @param answer the store's answer: {@code WON} with the lease, or the refusal and its reason
   * @param hold the lease now held, or {@code null} when refused or answered too late
   */
  public record Taken(ClaimResult answer, LeaseHold hold) {
    public Taken {
      Objects.requireNonNull(answer, "answer");
      if (hold != null && !answer.won()) {
        throw new IllegalArgumentException("a hold goes with a won answer only");
      }
    }

    /** Whether the lease is held (won, and answered in time). */
    public boolean held() {
      return hold != null;
    }

    /** Won on the store but answered after its validity: not held, already released. */
    public boolean late() {
      return answer.won() && hold == null;
    }

    public Optional<LeaseHold> holdIfHeld() {
      return Optional.ofNullable(hold);
    }
  }

  /**
   * Claims {@code firing} of {@code name} ({@link LeaseStore#tryClaim}: lease and watermark) and
   * holds the lease when won in time.
   *
   * @param renewEvery the renewal interval, below {@code ttl}; {@code null}: {@link
   *     LeaseTiming#defaultRenewEvery}
   * @throws LeaseStoreException when the store cannot be asked
   */
  public Taken claim(
      String name,
      Instant firing,
      String holder,
      Duration ttl,
      Duration renewEvery,
      LeaseHold.Listener listener) {
    Duration every = renewEvery(ttl, renewEvery);
    long sent = ticker.nanoTime();
    ClaimResult answer = store.tryClaim(name, firing, holder, ttl);
    if (!answer.won()) {
      return new Taken(answer, null);
    }
    return hold(answer.lease(), sent, every, listener);
  }

  /**
   * Acquires {@code name} ({@link LeaseStore#acquire}: mutual exclusion, no watermark) and holds
   * the lease when won in time; a refusal is answered as {@code HELD} by an unnamed holder.
   *
   * @throws LeaseStoreException when the store cannot be asked
   */
  public Taken acquire(
      String name, String holder, Duration ttl, Duration renewEvery, LeaseHold.Listener listener) {
    Duration every = renewEvery(ttl, renewEvery);
    long sent = ticker.nanoTime();
    Optional<Lease> won = store.acquire(name, holder, ttl);
    if (won.isEmpty()) {
      return new Taken(ClaimResult.held(null, null), null);
    }
    return hold(won.get(), sent, every, listener);
  }

  /**
   * Holds a lease the caller took itself (one answer of a batch, {@link LeaseStore#claimAll}),
   * given the ticker's reading just before the request was sent. Checked as {@link #claim} checks:
   * an answer read now that came too late is released and not held.
   */
  public Taken hold(Lease lease, long sentNanos, Duration renewEvery, LeaseHold.Listener listener) {
    Duration every = renewEvery(lease.ttl(), renewEvery);
    if (!LeaseTiming.answeredInTime(sentNanos, lease.ttl(), ticker.nanoTime())) {
      log.warn(
          "the answer for lease={} fence={} came after its validity had passed; not held",
          lease.name(),
          lease.fence());
      releaseQuietly(store, lease);
      return new Taken(ClaimResult.won(lease), null);
    }
    return new Taken(
        ClaimResult.won(lease), new LeaseHold(this, lease, sentNanos, every, listener));
  }

  /** The ticker that validities are measured on: read it just before sending a batch. */
  public Ticker ticker() {
    return ticker;
  }

  LeaseStore store() {
    return store;
  }

  TaskTimer timer() {
    return timer;
  }

  Executor blocking() {
    return blocking;
  }

  /** Ends the threads {@link #system} made; holders given their parts own nothing to end. */
  @Override
  public void close() {
    onClose.run();
  }

  private static Duration renewEvery(Duration ttl, Duration renewEvery) {
    Objects.requireNonNull(ttl, "ttl");
    Duration every = renewEvery == null ? LeaseTiming.defaultRenewEvery(ttl) : renewEvery;
    if (every.isNegative() || every.isZero() || every.compareTo(ttl) >= 0) {
      throw new IllegalArgumentException(
          "renew-every must be more than 0 and less than the ttl " + ttl + ", got " + every);
    }
    return every;
  }

  /** Frees {@code lease} by its token; a refusal or a store error only logs. */
  static boolean releaseQuietly(LeaseStore store, Lease lease) {
    try {
      boolean freed = store.release(lease);
      if (!freed) {
        log.debug("release refused lease={} fence={}: it had expired", lease.name(), lease.fence());
      }
      return freed;
    } catch (RuntimeException e) {
      log.warn(
          "release failed lease={} fence={}: {}; the lease ends by its TTL",
          lease.name(),
          lease.fence(),
          e.toString());
      return false;
    }
  }
}
