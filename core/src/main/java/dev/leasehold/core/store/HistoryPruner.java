package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.schedule.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the execution history within its {@link HistoryRetention}, once a minute, on one replica at
 * a time.
 *
 * <p>The prune is claimed like a job: every replica claims the lease {@value #LEASE} for the
 * current minute (the minute's first instant is the firing), so the store's watermark lets one
 * replica per minute win, cluster-wide. The winner removes what the retention no longer keeps in
 * batches of {@value #BATCH} ({@link ExecutionLog#prune}), with a short pause between them, until a
 * batch comes back short or its {@link #BUDGET} is spent (a backlog is worked off over the next
 * minutes), then releases the lease; the watermark keeps the minute spent. A replica's first
 * attempt comes a few seconds after it starts, the next ones a second past every minute.
 *
 * <p>The same pass forgets the lease records of jobs removed from the configuration ({@link
 * RemovedLeases}: free, unpaused, last firing older than {@link RemovedLeases#GRACE}) and
 * self-check scratch records left behind, on a store that can forget, in the prune of the first
 * minute of each hour; the job names come from a supplier, so a reload that adds or removes jobs
 * counts from the next pass on.
 *
 * <p>It runs on a thread of its own, so the scheduler's claims never wait for it; each batch is a
 * few small statements on the store. A failed prune logs a warning (once until one succeeds again)
 * and is tried again the next minute; pruning is idempotent, so a prune cut off half-way loses
 * nothing.
 */
public final class HistoryPruner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryPruner.class);

  /** The prune's lease: the {@code _leasehold.} prefix is never a job's. */
  public static final String LEASE = "_leasehold.history-prune";

  /** Records removed per batch. */
  static final int BATCH = 500;

  /** How long one replica prunes per minute at most; well inside {@link #TTL}. */
  static final Duration BUDGET = Duration.ofSeconds(20);

  static final Duration TTL = Duration.ofSeconds(45);
  static final Duration PAUSE = Duration.ofMillis(50);
  static final Duration FIRST = Duration.ofSeconds(5);

  private final LeaseStore store;
  private final ExecutionLog history;
  private final HistoryRetention retention;
  private final String holder;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService thread;
  private final RemovedLeases removed;
  private boolean failing;

  /** A pruner of the history alone: no lease record is forgotten. */
  public HistoryPruner(
      LeaseStore store,
      ExecutionLog history,
      HistoryRetention retention,
      String node,
      Clock clock) {
    this(store, Optional.empty(), history, retention, node, clock, null, System::nanoTime);
  }

  /**
   * @param forgetting the store's port for deleting lease records ({@link StoreBackend#forgetting})
   * @param jobs the names of the jobs the running configuration has, asked at every pass; records
   *     of other names are forgotten after {@link RemovedLeases#GRACE}
   */
  public HistoryPruner(
      LeaseStore store,
      Optional<Forgetting> forgetting,
      ExecutionLog history,
      HistoryRetention retention,
      String node,
      Clock clock,
      Supplier<Set<String>> jobs) {
    this(store, forgetting, history, retention, node, clock, jobs, System::nanoTime);
  }

  HistoryPruner(
      LeaseStore store,
      Optional<Forgetting> forgetting,
      ExecutionLog history,
      HistoryRetention retention,
      String node,
      Clock clock,
      Supplier<Set<String>> jobs,
      LongSupplier nanoTime) {
    this.store = store;
    this.removed = new RemovedLeases(store, forgetting, jobs);
    this.history = history;
    this.retention = retention;
    this.holder = node;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "leasehold-history-prune");
              t.setDaemon(true);
              t.setPriority(Thread.MIN_PRIORITY);
              return t;
            });
  }

  /** Starts pruning: first after {@link #FIRST}, then a second past every minute. */
  public void start() {
    thread.schedule(this::tick, FIRST.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      pruneOnce();
    } finally {
      Instant now = clock.instant();
      Instant next = now.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1)).plusSeconds(1);
      try {
        thread.schedule(
            this::tick, Math.max(1, Duration.between(now, next).toMillis()), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closed meanwhile
      }
    }
  }

  /**
   * Claims this minute's prune and, when won, prunes.
   *
   * @return how many records were removed, or empty when another replica has this minute
   */
  public synchronized Optional<Integer> pruneOnce() {
    Instant minute = clock.instant().truncatedTo(ChronoUnit.MINUTES);
    try {
      Optional<Lease> lease = store.claim(LEASE, minute, holder, TTL);
      if (lease.isEmpty()) {
        log.debug("history prune of {} done or under way elsewhere", minute);
        return Optional.empty();
      }
      try {
        int pruned = prune();
        if (RemovedLeases.due(minute)) {
          forgetRemoved();
        }
        return Optional.of(pruned);
      } finally {
        store.release(lease.get());
      }
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn("history prune failed: {}; trying again every minute", e.getMessage());
      } else {
        log.debug("history prune failed again: {}", e.getMessage());
      }
      failing = true;
      return Optional.of(0);
    }
  }

  private int prune() {
    long start = nanoTime.getAsLong();
    int total = 0;
    while (true) {
      int removed = history.prune(retention, clock.instant(), BATCH);
      total += removed;
      if (removed < BATCH) {
        break;
      }
      if (nanoTime.getAsLong() - start > BUDGET.toNanos() || !pause()) {
        log.info("history prune: {} records removed, more at the next prune", total);
        failing = false;
        return total;
      }
    }
    failing = false;
    if (total > 0) {
      log.info(
          "history prune: {} records removed (keep {}, max-per-job {}) in {}",
          total,
          Durations.human(retention.keep()),
          retention.maxPerJob(),
          Durations.human(Duration.ofNanos(nanoTime.getAsLong() - start)));
    }
    return total;
  }

  /** A failure here is logged and the history prune's count still stands. */
  private void forgetRemoved() {
    try {
      int forgotten = removed.forget(clock.instant());
      if (forgotten > 0) {
        log.info(
            "lease records of {} removed jobs or scratch names forgotten (free for over {})",
            forgotten,
            Durations.human(RemovedLeases.GRACE));
      }
    } catch (RuntimeException e) {
      log.warn("forgetting the lease records of removed jobs failed: {}", e.getMessage());
    }
  }

  /** False when interrupted (closing): the prune stops, the rest waits for the next one. */
  private static boolean pause() {
    try {
      Thread.sleep(PAUSE.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Stops pruning; a prune under way is interrupted (it loses nothing). */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}
