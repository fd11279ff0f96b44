package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.RequestSignals;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The version marker of the request queue ({@link TriggerRequest#QUEUE}): the fencing token of the
 * lease record of that same name. Whoever writes a request row then bumps the marker by acquiring
 * that lease and releasing it at once (every store raises a name's fence with each acquisition, and
 * a refusal consumes none), so a daemon learns that the queue changed from one primary-key read
 * ({@code inspect}) instead of reading the queue's newest rows. No store needs an operation of its
 * own for it: it is a lease like any other (a {@code _leasehold.} name, never forgotten).
 *
 * <p>The order is the whole guarantee: the row is written before the bump, and a daemon reads the
 * marker before the queue; so a daemon that sees the bumped value reads a queue that holds the row,
 * and one that read the marker before the bump sees it change at its next look.
 *
 * <p>{@link #signaling} is an execution log that bumps after each request row it writes (the CLI's
 * {@code trigger} and {@code backfill}, a daemon's chain hand-offs); a scheduler whose execution
 * log is one reads the marker at each poll and the queue only when it moved ({@link
 * TriggerRequests}).
 */
public final class RequestMarker {
  private static final Logger log = LoggerFactory.getLogger(RequestMarker.class);

  /** The lease name whose fence is the marker: the queue's own name. */
  public static final String NAME = TriggerRequest.QUEUE;

  /** How long a bump holds the marker's lease at most (it releases it at once). */
  static final Duration HOLD = Duration.ofSeconds(2);

  /** How long a bump tries while another writer's bump holds the lease (a moment as a rule). */
  static final Duration TRYING = Duration.ofSeconds(3);

  private static final long PAUSE_MILLIS = 20;

  private RequestMarker() {}

  /**
   * {@code log} for a store whose request rows bump the marker in {@code store}: every other call
   * goes to {@code log} as it is.
   */
  public static ExecutionLog signaling(ExecutionLog log, LeaseStore store) {
    return signaling(log, store, Optional.empty());
  }

  /**
   * {@code log} for a store whose request rows bump the marker in {@code store} and then send
   * {@code signals} (the store's own notification, when it has one: a daemon listening to it takes
   * a request at once, and reads the marker only now and then).
   */
  public static ExecutionLog signaling(
      ExecutionLog log, LeaseStore store, Optional<RequestSignals> signals) {
    return log instanceof Signaling ? log : new Signaling(log, store, signals);
  }

  /**
   * Bumps the marker: acquires and releases its lease, asking again while another writer's bump
   * holds it, for up to {@link #TRYING}; returns whether it moved. A marker that did not move is
   * logged: the row is still taken, at the daemons' next full read of the queue.
   */
  public static boolean bump(LeaseStore store, String holder) {
    long deadline = System.nanoTime() + TRYING.toNanos();
    while (true) {
      try {
        Optional<Lease> lease = store.acquire(NAME, holder, HOLD);
        if (lease.isPresent()) {
          try {
            store.release(lease.get());
          } catch (RuntimeException e) {
            log.debug("request marker not released (it ends by its ttl): {}", e.toString());
          }
          return true;
        }
      } catch (RuntimeException e) {
        log.debug("request marker not bumped: {}", e.toString());
      }
      if (System.nanoTime() - deadline > 0) {
        log.info(
            "the request marker could not be bumped; the daemons find the request at their next"
                + " full read of the queue");
        return false;
      }
      try {
        Thread.sleep(PAUSE_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /**
   * The marker's value now: the fence of its lease record, 0 when there is none yet (a store that
   * forgot it keeps the fence's high-water mark, so its next value differs from every one seen).
   */
  static long read(LeaseStore store) {
    return store.inspect(NAME).map(LeaseState::fence).orElse(0L);
  }

  /** Listens to {@code signals}; null (logged) when the store refused, the daemon then polls. */
  static AutoCloseable listen(RequestSignals signals, Runnable wake) {
    try {
      return signals.listen(wake);
    } catch (RuntimeException e) {
      log.warn("not listening to the store's request signals, polling: {}", e.toString());
      return null;
    }
  }

  /** Stops a listener of {@link #listen}. */
  static void close(AutoCloseable listener) {
    try {
      listener.close();
    } catch (Exception e) {
      log.debug("closing the request signals' listener: {}", e.toString());
    }
  }

  /** The marker's store and signals of a scheduler's log, or empty for a log that does not. */
  static Optional<Signaling> of(ExecutionLog log) {
    return log instanceof Signaling s ? Optional.of(s) : Optional.empty();
  }

  /** An execution log whose request rows bump the marker (then signal) after they were written. */
  static final class Signaling implements ExecutionLog {
    private final ExecutionLog log;
    final LeaseStore store;
    final Optional<RequestSignals> signals;

    Signaling(ExecutionLog log, LeaseStore store, Optional<RequestSignals> signals) {
      this.log = Objects.requireNonNull(log, "log");
      this.store = Objects.requireNonNull(store, "store");
      this.signals = Objects.requireNonNull(signals, "signals");
    }

    @Override
    public void record(ExecutionRecord record) {
      log.record(record);
      if (record.outcome() == Outcome.REQUESTED && NAME.equals(record.job())) {
        bump(store, record.node());
        signals.ifPresent(
            s -> {
              try {
                s.signal();
              } catch (RuntimeException e) {
                RequestMarker.log.debug("request signal not sent: {}", e.toString());
              }
            });
      }
    }

    @Override
    public List<ExecutionRecord> recent(String job, int limit) {
      return log.recent(job, limit);
    }

    @Override
    public List<ExecutionRecord> before(String job, Instant before, int limit) {
      return log.before(job, before, limit);
    }

    @Override
    public int prune(HistoryRetention retention, Instant now, int limit) {
      return log.prune(retention, now, limit);
    }
  }
}
