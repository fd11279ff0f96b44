package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application service: fires every job at its scheduled instants, on exactly one replica.
 *
 * <p>One {@link TaskTimer} holds the next firing of every job (no thread per job, no polling). At a
 * firing, a worker calls {@link LeaseStore#claim} with the scheduled instant; the single winner
 * runs the job under a watchdog ({@link Execution}), records the outcome and releases. Losers log
 * at debug level only.
 *
 * <ul>
 *   <li>G1/G2: the claim carries the scheduled instant, not "now": a replica whose clock is late
 *       claims the same firing later and the store's watermark refuses it.
 *   <li>G8: a store error is "not acquired"; the claim is retried with capped backoff while the
 *       firing is within its misfire grace, then dropped.
 *   <li>G9: at start, the latest firing within the misfire grace is claimed once (the watermark
 *       refuses it if another replica ran it); a late timer (paused process, wall-clock jump)
 *       coalesces every missed firing into the latest one.
 *   <li>Overlap: a firing that arrives while this node still runs the job's previous firing is
 *       recorded as {@link Outcome#SKIPPED}; other replicas are refused by the live lease.
 * </ul>
 */
public final class Scheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  /** Lateness of a timer that still counts as on time, even with a misfire grace of 0. */
  static final Duration TIMER_TOLERANCE = Duration.ofSeconds(1);

  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

  private final SchedulerParts parts;
  private final ExecutionLog executionLog;
  private final SchedulerListener listener;
  private final Map<String, Track> tracks = new LinkedHashMap<>();
  private final boolean ownsTimer;
  private final ExecutorService ownedWorkers;

  private final Object lock = new Object();
  private boolean accepting;
  private boolean stopped;

  /** Per-job state, guarded by {@link #lock}. */
  private static final class Track {
    final JobDefinition job;
    Cancellable pending;
    Instant next;

    /** A claim for this job is in flight or its execution runs on this node. */
    boolean busy;

    /** A claim waiting to be retried after a store error. */
    Cancellable retry;

    Execution current;

    Track(JobDefinition job) {
      this.job = job;
    }
  }

  private Scheduler(Builder b) {
    this.ownsTimer = b.timer == null;
    TaskTimer timer = ownsTimer ? TaskTimer.system("leasehold-timer") : b.timer;
    Executor workers = b.workers;
    if (workers == null) {
      AtomicInteger n = new AtomicInteger();
      ownedWorkers =
          Executors.newCachedThreadPool(
              r -> {
                Thread t = new Thread(r, "leasehold-worker-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      workers = ownedWorkers;
    } else {
      ownedWorkers = null;
    }
    this.parts = new SchedulerParts(b.node, b.store, b.clock, b.ticker, timer, workers);
    this.executionLog = b.executionLog;
    this.listener = b.listener;
    for (JobDefinition job : b.jobs.values()) {
      tracks.put(job.name(), new Track(job));
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public String node() {
    return parts.node();
  }

  public List<JobDefinition> jobs() {
    return tracks.values().stream().map(t -> t.job).toList();
  }

  /** The next firing of {@code job} after now, as this node's clock sees it. */
  public Optional<Instant> nextFiring(String job) {
    return track(job).job.schedule().nextAfter(parts.clock().instant());
  }

  /** Starts firing every job. */
  public void start() {
    synchronized (lock) {
      if (accepting || stopped) {
        throw new IllegalStateException(stopped ? "scheduler was stopped" : "already started");
      }
      accepting = true;
      Instant now = parts.clock().instant();
      for (Track track : tracks.values()) {
        // G9: the latest firing within the grace may have been missed while every replica was
        // down; the watermark refuses it if someone ran it
        track
            .job
            .schedule()
            .latestIn(now.minus(graceOf(track.job)), now)
            .ifPresent(missed -> dispatch(track, missed));
        scheduleNext(track, now);
      }
    }
    log.info("scheduler started node={} jobs={}", parts.node(), tracks.size());
  }

  // --- firing -----------------------------------------------------------------------------

  private static Duration graceOf(JobDefinition job) {
    return job.policy().misfireGrace().plus(TIMER_TOLERANCE);
  }

  /** Caller holds the lock. */
  private void idle(Track track) {
    track.busy = false;
    track.retry = null;
    lock.notifyAll();
  }

  /** Caller holds the lock. */
  private void scheduleNext(Track track, Instant after) {
    Optional<Instant> next = track.job.schedule().nextAfter(after);
    track.next = next.orElse(null);
    if (next.isEmpty()) {
      track.pending = null;
      return;
    }
    Instant firing = next.get();
    Duration delay = Duration.between(parts.clock().instant(), firing);
    track.pending = parts.timer().schedule(() -> onTimer(track, firing), delay);
  }

  private void onTimer(Track track, Instant firing) {
    synchronized (lock) {
      if (!accepting) {
        return;
      }
      Instant now = parts.clock().instant();
      if (now.isBefore(firing)) {
        // the wall clock is behind the timer (it was set back, or we woke early): wait the rest
        track.pending =
            parts.timer().schedule(() -> onTimer(track, firing), Duration.between(now, firing));
        return;
      }
      // coalesce: after a pause or a wall-clock jump, only the latest due firing runs
      Instant target = track.job.schedule().latestIn(firing.minusMillis(1), now).orElse(firing);
      if (Duration.between(target, now).compareTo(graceOf(track.job)) > 0) {
        log.warn(
            "firing missed job={} firing={}: {}ms late, beyond misfire-grace {}",
            track.job.name(),
            target,
            Duration.between(target, now).toMillis(),
            track.job.policy().misfireGrace());
      } else {
        dispatch(track, target);
      }
      scheduleNext(track, now.isAfter(target) ? now : target);
    }
  }

  /** Caller holds the lock. */
  private void dispatch(Track track, Instant firing) {
    if (track.busy) {
      if (track.current != null) {
        recordSkip(track, firing);
      } else {
        log.debug("firing job={} firing={}: a claim is still in flight", track.job.name(), firing);
      }
      return;
    }
    track.busy = true;
    parts.workers().execute(() -> attemptClaim(track, firing, 1));
  }

  private void recordSkip(Track track, Instant firing) {
    Instant now = parts.clock().instant();
    ExecutionRecord skipped =
        new ExecutionRecord(
            track.job.name(),
            firing,
            parts.node(),
            0,
            TriggerKind.SCHEDULED,
            now,
            now,
            Outcome.SKIPPED,
            null,
            "previous firing " + track.current.context().firing() + " still running");
    log.info(
        "execution job={} firing={} node={} outcome=skipped: previous firing {} still running",
        track.job.name(),
        firing,
        parts.node(),
        track.current.context().firing());
    parts.workers().execute(() -> finish(skipped));
  }

  private void attemptClaim(Track track, Instant firing, int attempt) {
    JobDefinition job = track.job;
    synchronized (lock) {
      track.retry = null;
      if (!accepting) {
        idle(track);
        return;
      }
    }
    long sent = parts.ticker().nanoTime();
    Optional<Lease> lease;
    try {
      lease = parts.store().claim(job.name(), firing, parts.node(), job.policy().ttl());
      listener.storeAnswered();
    } catch (RuntimeException e) {
      listener.storeUnavailable(job.name(), e);
      retryClaim(track, firing, attempt, e);
      return;
    }
    if (lease.isEmpty()) {
      log.debug(
          "claim refused job={} firing={}: held elsewhere or already run", job.name(), firing);
      listener.claimRefused(job.name(), firing);
      synchronized (lock) {
        idle(track);
      }
      return;
    }
    // claimed: the firing is ours alone now, so it runs even if a stop began meanwhile (the
    // shutdown grace applies to it like to any running job)
    Execution execution =
        new Execution(job, lease.get(), firing, attempt, TriggerKind.SCHEDULED, sent, parts);
    synchronized (lock) {
      track.current = execution;
    }
    try {
      finish(execution.run());
    } finally {
      synchronized (lock) {
        track.current = null;
        idle(track);
      }
    }
  }

  /** G8: back off and try again while the firing is still within its grace. */
  private void retryClaim(Track track, Instant firing, int attempt, RuntimeException error) {
    Duration backoff = backoff(attempt);
    synchronized (lock) {
      Instant now = parts.clock().instant();
      Instant retryAt = now.plus(backoff);
      boolean inGrace =
          Duration.between(firing, retryAt).compareTo(graceOf(track.job)) <= 0
              || track.job.schedule().nextAfter(firing).map(n -> !n.isAfter(retryAt)).orElse(false);
      if (!accepting || !inGrace) {
        idle(track);
        log.warn(
            "store unreachable job={} firing={} attempt={}: {}; firing not run",
            track.job.name(),
            firing,
            attempt,
            error.toString());
        return;
      }
      log.warn(
          "store unreachable job={} firing={} attempt={}: {}; retrying in {}ms",
          track.job.name(),
          firing,
          attempt,
          error.toString(),
          backoff.toMillis());
      track.retry =
          parts
              .timer()
              .schedule(
                  () -> {
                    synchronized (lock) {
                      if (!accepting) {
                        idle(track);
                        return;
                      }
                      // a newer firing may have come due meanwhile: claim that one (coalescing)
                      Instant latest =
                          track
                              .job
                              .schedule()
                              .latestIn(firing, parts.clock().instant())
                              .orElse(firing);
                      if (Duration.between(latest, parts.clock().instant())
                              .compareTo(graceOf(track.job))
                          > 0) {
                        idle(track);
                        log.warn(
                            "firing missed job={} firing={}: store unreachable",
                            track.job.name(),
                            latest);
                        return;
                      }
                      parts.workers().execute(() -> attemptClaim(track, latest, attempt + 1));
                    }
                  },
                  backoff);
    }
  }

  static Duration backoff(int attempt) {
    long millis = 500L << Math.min(attempt - 1, 10);
    return millis >= MAX_BACKOFF.toMillis() ? MAX_BACKOFF : Duration.ofMillis(millis);
  }

  private void finish(ExecutionRecord record) {
    try {
      executionLog.record(record);
    } catch (RuntimeException e) {
      log.warn(
          "could not write history job={} firing={}: {}",
          record.job(),
          record.fireTime(),
          e.toString());
    }
    listener.executionFinished(record);
  }

  // --- manual trigger -----------------------------------------------------------------------

  /**
   * Runs {@code job} once now, in the calling thread, cluster-wide once: it takes the job's lease
   * with {@link LeaseStore#acquire}, so it never overlaps a scheduled run and never moves the
   * watermark. The execution is recorded as {@link TriggerKind#MANUAL}.
   *
   * @return the record, or empty when the lease is held elsewhere
   * @throws IllegalArgumentException for an unknown job
   * @throws dev.leasehold.core.lease.LeaseStoreException when the store cannot be reached
   */
  public Optional<ExecutionRecord> trigger(String job) {
    JobDefinition definition = track(job).job;
    long sent = parts.ticker().nanoTime();
    Optional<Lease> lease =
        parts.store().acquire(definition.name(), parts.node(), definition.policy().ttl());
    if (lease.isEmpty()) {
      return Optional.empty();
    }
    Instant now = parts.clock().instant().truncatedTo(ChronoUnit.MILLIS);
    Execution execution =
        new Execution(definition, lease.get(), now, 1, TriggerKind.MANUAL, sent, parts);
    ExecutionRecord record = execution.run();
    finish(record);
    return Optional.of(record);
  }

  private Track track(String job) {
    Track track = tracks.get(job);
    if (track == null) {
      throw new IllegalArgumentException("unknown job '" + job + "'; known: " + tracks.keySet());
    }
    return track;
  }

  // --- stopping -----------------------------------------------------------------------------

  /**
   * Graceful stop: claims nothing more, waits up to {@code grace} for running jobs, then asks the
   * rest to stop (they are interrupted) and waits for them to end and release their leases.
   */
  public void stop(Duration grace) {
    List<Execution> stragglers = new ArrayList<>();
    synchronized (lock) {
      if (stopped) {
        return;
      }
      stopped = true;
      accepting = false;
      for (Track track : tracks.values()) {
        if (track.pending != null) {
          track.pending.cancel();
        }
        if (track.retry != null) {
          track.retry.cancel();
          idle(track);
        }
      }
      awaitIdle(grace);
      for (Track track : tracks.values()) {
        if (track.current != null) {
          stragglers.add(track.current);
        }
      }
    }
    for (Execution e : stragglers) {
      e.stop(StopReason.SHUTDOWN, "shutdown grace ran out");
    }
    synchronized (lock) {
      awaitIdle(Duration.ofSeconds(30));
    }
    if (ownsTimer) {
      parts.timer().close();
    }
    if (ownedWorkers != null) {
      ownedWorkers.shutdown();
    }
    log.info("scheduler stopped node={}", parts.node());
  }

  /** Caller holds the lock. Waits in real time: shutdown is a real-world event. */
  private void awaitIdle(Duration limit) {
    long end = System.nanoTime() + limit.toNanos();
    while (tracks.values().stream().anyMatch(t -> t.busy)) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        lock.wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    stop(DEFAULT_SHUTDOWN_GRACE);
  }

  /** Builds a {@link Scheduler}; node, store and execution log are required. */
  public static final class Builder {
    private String node;
    private LeaseStore store;
    private ExecutionLog executionLog;
    private final Map<String, JobDefinition> jobs = new LinkedHashMap<>();
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private TaskTimer timer;
    private Executor workers;
    private SchedulerListener listener = SchedulerListener.NONE;

    private Builder() {}

    public Builder node(String node) {
      this.node = node;
      return this;
    }

    public Builder store(LeaseStore store) {
      this.store = store;
      return this;
    }

    public Builder executionLog(ExecutionLog executionLog) {
      this.executionLog = executionLog;
      return this;
    }

    public Builder job(JobDefinition job) {
      if (jobs.putIfAbsent(job.name(), job) != null) {
        throw new IllegalArgumentException("duplicate job name '" + job.name() + "'");
      }
      return this;
    }

    public Builder jobs(Collection<JobDefinition> jobs) {
      jobs.forEach(this::job);
      return this;
    }

    /** Wall clock for firing instants and history; default UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    /** Monotonic clock for lease validity; default {@link System#nanoTime()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker);
      return this;
    }

    /** The timer; default one daemon thread, closed with the scheduler. */
    public Builder timer(TaskTimer timer) {
      this.timer = Objects.requireNonNull(timer);
      return this;
    }

    /** Runs claims, renewals and job bodies; default a cached daemon pool. */
    public Builder workers(Executor workers) {
      this.workers = Objects.requireNonNull(workers);
      return this;
    }

    public Builder listener(SchedulerListener listener) {
      this.listener = Objects.requireNonNull(listener);
      return this;
    }

    public Scheduler build() {
      if (node == null || node.isBlank()) {
        throw new IllegalArgumentException("node must not be blank");
      }
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(executionLog, "executionLog");
      return new Scheduler(this);
    }
  }
}
