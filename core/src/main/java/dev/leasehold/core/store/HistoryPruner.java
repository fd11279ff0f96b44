package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.time.Cancellable;
import dev.leasehold.core.time.TaskTimer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
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
 * <p>Journal streams handed to {@link #prunesJournal} (the audit trail) lose their entries older
 * than the retention's {@code keep} in the same pass, after the history.
 *
 * <p>It has no thread of its own: a pass is a task on the scheduler's {@link TaskTimer} that hands
 * the prune to the scheduler's workers (the timer never blocks), so the scheduler's claims never
 * wait for it; each batch is a few small statements on the store. The next pass is scheduled on the
 * timer at the end of the previous one, so two passes never overlap. A failed prune logs a warning
 * (once until one succeeds again) and is tried again the next minute; pruning is idempotent, so a
 * prune cut off half-way loses nothing.
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
  private final RemovedLeases removed;
  private Optional<Journal> journal = Optional.empty();
  private List<String> streams = List.of();
  private Consumer<String> forgotten = name -> {};
  private boolean failing;
  private TaskTimer timer;
  private Executor workers;
  private volatile Cancellable pending;
  private volatile boolean stopped;

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
  }

  /**
   * Also keeps these streams of the store's journal within the retention's {@code keep}, in every
   * pass; nothing when {@code journal} is empty. Called before {@link #start}.
   */
  public HistoryPruner prunesJournal(Optional<Journal> journal, List<String> streams) {
    if (this.timer != null) {
      throw new IllegalStateException("the history pruner is started already");
    }
    this.journal = journal;
    this.streams = List.copyOf(streams);
    return this;
  }

  /** Told the name of each removed job whose lease record a pass forgot. Called before start. */
  public HistoryPruner onForgotten(Consumer<String> listener) {
    this.forgotten = listener;
    return this;
  }

  /**
   * Starts pruning: first after {@link #FIRST}, then a second past every minute, each pass a task
   * on {@code timer} whose prune runs on {@code workers} (the scheduler's own two; neither is
   * closed here). Called once.
   */
  public void start(TaskTimer timer, Executor workers) {
    if (this.timer != null) {
      throw new IllegalStateException("the history pruner is started already");
    }
    this.timer = timer;
    this.workers = workers;
    next(FIRST);
  }

  /** On the timer: hands the pass to a worker. */
  private void due() {
    if (stopped) {
      return;
    }
    try {
      workers.execute(this::pass);
    } catch (RejectedExecutionException e) {
      // the workers are shut down: the daemon is stopping
    }
  }

  /** On a worker: one pass, then the next one scheduled (so passes never overlap). */
  private void pass() {
    try {
      pruneOnce();
    } finally {
      Instant now = clock.instant();
      Instant next = now.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1)).plusSeconds(1);
      next(Duration.ofMillis(Math.max(1, Duration.between(now, next).toMillis())));
    }
  }

  /**
   * Schedules the next pass unless stopped. {@link #close} sets {@code stopped} before it reads
   * {@code pending} and this writes {@code pending} before it reads {@code stopped} again, so a
   * pass scheduled while closing is always called off by one of the two.
   */
  private void next(Duration delay) {
    if (stopped) {
      return;
    }
    try {
      pending = timer.schedule(this::due, delay);
    } catch (RejectedExecutionException e) {
      return; // the timer is closed: the daemon is stopping
    }
    if (stopped) {
      pending.cancel();
    }
  }

  /**
   * Claims this minute's prune and, when won, prunes.
   *
   * <p>Needs no lock: once {@link #start started}, only the chain of passes calls it, one pass at a
   * time (each pass schedules the next when it ends, and the timer's and the workers' hand-overs
   * order one pass's writes before the next one's reads); a test calls it directly on a pruner it
   * never started.
   *
   * @return how many records were removed, or empty when another replica has this minute
   */
  public Optional<Integer> pruneOnce() {
    Instant minute = clock.instant().truncatedTo(ChronoUnit.MINUTES);
    try {
      Optional<Lease> lease = store.claim(LEASE, minute, holder, TTL);
      if (lease.isEmpty()) {
        log.debug("history prune of {} done or under way elsewhere", minute);
        return Optional.empty();
      }
      try {
        int pruned = prune();
        pruneJournal();
        if (RemovedLeases.due(minute)) {
          forgetRemoved();
        }
        return Optional.of(pruned);
      } finally {
        store.release(lease.get());
      }
    } catch (RuntimeException e) {
      if (stopped) {
        // the daemon is stopping and its store may close under this pass: nothing to report
        log.debug("history prune cut off while stopping: {}", e.getMessage());
        return Optional.of(0);
      }
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

  /** The journal's streams past the keep; a failure is logged, the history's count stands. */
  private void pruneJournal() {
    for (String stream : streams) {
      try {
        int gone = journal.map(j -> j.prune(stream, retention.cutoff(clock.instant()))).orElse(0);
        if (gone > 0) {
          log.info("journal prune: {} entries of {} removed", gone, stream);
        }
      } catch (RuntimeException e) {
        log.warn("pruning the journal stream {} failed: {}", stream, e.getMessage());
      }
    }
  }

  /** A failure here is logged and the history prune's count still stands. */
  private void forgetRemoved() {
    try {
      int count = removed.forget(clock.instant(), forgotten);
      if (count > 0) {
        log.info(
            "lease records of {} removed jobs or scratch names forgotten (free for over {})",
            count,
            Durations.human(RemovedLeases.GRACE));
      }
    } catch (RuntimeException e) {
      log.warn("forgetting the lease records of removed jobs failed: {}", e.getMessage());
    }
  }

  /** False when stopped or interrupted: the prune stops, the rest waits for the next one. */
  private boolean pause() {
    if (stopped) {
      return false;
    }
    try {
      Thread.sleep(PAUSE.toMillis());
      return !stopped;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Stops pruning and waits for nothing: the pending pass is called off, and a prune under way
   * stops at its next pause between batches (it loses nothing).
   */
  @Override
  public void close() {
    stopped = true;
    Cancellable task = pending;
    if (task != null) {
      task.cancel();
    }
  }
}
