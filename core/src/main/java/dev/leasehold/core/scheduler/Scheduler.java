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
import java.util.TreeSet;
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

  /** Firings that may wait behind one claim or run of their job; more are dropped, oldest first. */
  private static final int MAX_QUEUED = 64;

  /** How often a claim refused by an earlier firing's lease is tried again. */
  private static final Duration LEASE_POLL = Duration.ofMillis(100);

  /** Default for {@link Builder#clockSkewAllowance}. */
  public static final Duration DEFAULT_SKEW_ALLOWANCE = Duration.ofSeconds(2);

  private final SchedulerParts parts;
  private final ExecutionLog executionLog;
  private final SchedulerListener listener;
  private final Duration skewAllowance;
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

    /** A claim for this job is in flight or its execution runs on this node. */
    boolean busy;

    /** A claim waiting to be retried after a store error. */
    Cancellable retry;

    /** Firings that came due while a claim or run was in flight; claimed after it, in order. */
    final TreeSet<Instant> queued = new TreeSet<>();

    /** {@link #retry} waits for a lease held by an earlier firing, not for the store. */
    boolean waitingForLease;

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
    this.skewAllowance = b.skewAllowance;
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
      Instant horizon = now.minus(skewAllowance);
      for (Track track : tracks.values()) {
        // G9: the latest firing within the grace may have been missed while every replica was
        // down (the watermark refuses it if someone ran it), unless a newer one is due already:
        // firings after the horizon are claimed one by one, as the timer fires at once for them
        if (!newerFiringDue(track, horizon, now)) {
          track
              .job
              .schedule()
              .latestIn(now.minus(graceOf(track.job)), horizon)
              .ifPresent(firing -> dispatch(track, firing));
        }
        scheduleNext(track, horizon);
      }
    }
    log.info("scheduler started node={} jobs={}", parts.node(), tracks.size());
  }

  // --- firing -----------------------------------------------------------------------------

  private static Duration graceOf(JobDefinition job) {
    return job.policy().misfireGrace().plus(TIMER_TOLERANCE);
  }

  /** The job has no claim in flight and no run here; claims a firing queued meanwhile. */
  private void idle(Track track) {
    idle(track, null);
  }

  /**
   * The job has no claim in flight and no run here: claims the firing queued meanwhile, unless it
   * waited behind this node's own run ({@code ran}) for longer than the skew allowance, which makes
   * it an overlap.
   */
  private void idle(Track track, Instant ran) {
    track.busy = false;
    track.retry = null;
    track.waitingForLease = false;
    Instant now = parts.clock().instant();
    while (accepting && !track.queued.isEmpty()) {
      Instant queued = track.queued.pollFirst();
      if (isMissed(track, queued, now)) {
        log.warn("firing missed job={} firing={}: beyond misfire-grace", track.job.name(), queued);
      } else if (ran != null && Duration.between(queued, now).compareTo(skewAllowance) > 0) {
        recordSkip(track, queued, ran);
      } else {
        dispatch(track, queued); // the rest stay queued behind this one
        break;
      }
    }
    if (!accepting) {
      track.queued.clear();
    }
    lock.notifyAll();
  }

  private boolean isMissed(Track track, Instant firing, Instant now) {
    return Duration.between(firing, now).compareTo(graceOf(track.job)) > 0;
  }

  /**
   * The firing a late timer runs, or {@code null} when younger firings are due and this one
   * coalesces into them. Firings younger than the skew allowance ({@code now} minus it is the
   * horizon) are never coalesced but claimed one by one: on a replica whose clock runs ahead they
   * may not be due yet on the others' clocks, and claiming a later one first would move the
   * watermark past a firing nobody has run. Older firings coalesce into the latest one.
   */
  private Instant coalesce(Track track, Instant firing, Instant now) {
    Instant horizon = now.minus(skewAllowance);
    if (firing.isAfter(horizon)) {
      return firing;
    }
    if (newerFiringDue(track, horizon, now)) {
      return null;
    }
    return track.job.schedule().latestIn(firing.minusMillis(1), horizon).orElse(firing);
  }

  /** Whether a firing after {@code horizon} is due by {@code now} (on this node's clock). */
  private boolean newerFiringDue(Track track, Instant horizon, Instant now) {
    return track.job.schedule().nextAfter(horizon).map(f -> !f.isAfter(now)).orElse(false);
  }

  /** Caller holds the lock. */
  private void scheduleNext(Track track, Instant after) {
    Optional<Instant> next = track.job.schedule().nextAfter(after);
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
      Instant target = coalesce(track, firing, now);
      if (target == null) {
        // younger firings are due: they run one by one and the older ones coalesce into them
        scheduleNext(track, now.minus(skewAllowance));
        return;
      }
      if (isMissed(track, target, now)) {
        log.warn(
            "firing missed job={} firing={}: {}ms late, beyond misfire-grace {}",
            track.job.name(),
            target,
            Duration.between(target, now).toMillis(),
            track.job.policy().misfireGrace());
      } else {
        dispatch(track, target);
      }
      scheduleNext(track, target);
    }
  }

  /** Caller holds the lock. */
  private void dispatch(Track track, Instant firing) {
    if (track.retry != null && !track.waitingForLease) {
      // waiting out a backoff after a store error: a new firing is a reason to try now
      track.retry.cancel();
      track.retry = null;
      track.busy = false;
    }
    if (track.busy) {
      // overlap: a firing that comes while this node still runs the job waits, but only for the
      // skew allowance (it may be due early on this clock); after that it is skipped
      Instant now = parts.clock().instant();
      if (track.current != null && Duration.between(firing, now).compareTo(skewAllowance) > 0) {
        recordSkip(track, firing, track.current.context().firing());
      } else if (track.queued.add(firing)) {
        log.debug(
            "firing job={} firing={}: queued behind the job's claim or run",
            track.job.name(),
            firing);
        if (track.queued.size() > MAX_QUEUED) {
          Instant oldest = track.queued.pollFirst();
          log.warn(
              "firing missed job={} firing={}: too many firings queued", track.job.name(), oldest);
        }
      }
      return;
    }
    track.busy = true;
    parts.workers().execute(() -> attemptClaim(track, firing, 1));
  }

  private void recordSkip(Track track, Instant firing, Instant running) {
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
            "previous firing " + running + " still running");
    log.info(
        "execution job={} firing={} node={} outcome=skipped: previous firing {} still running",
        track.job.name(),
        firing,
        parts.node(),
        running);
    parts.workers().execute(() -> finish(skipped));
  }

  private void attemptClaim(Track track, Instant firing, int attempt) {
    JobDefinition job = track.job;
    synchronized (lock) {
      track.retry = null;
      track.waitingForLease = false;
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
      listener.claimRefused(job.name(), firing);
      if (heldForAnOlderFiring(job, firing)) {
        waitForLease(track, firing, attempt);
        return;
      }
      log.debug("claim refused job={} firing={}: already run", job.name(), firing);
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
        idle(track, firing);
      }
    }
  }

  /**
   * Whether a refused claim met a live lease of an earlier firing (someone still runs it), rather
   * than a watermark at or past this firing (someone ran this one). Asked only of losers.
   */
  private boolean heldForAnOlderFiring(JobDefinition job, Instant firing) {
    try {
      return parts
          .store()
          .inspect(job.name())
          .map(s -> s.held() && (s.lastFire() == null || s.lastFire().isBefore(firing)))
          .orElse(false);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * The lease is busy with an earlier firing: try again shortly while the firing is younger than
   * the skew allowance. A short overlap (the previous run ends just after this firing, or a replica
   * whose clock runs ahead claimed early) then delays the firing instead of losing it; a longer one
   * is an overlap, and the firing is skipped (the holder records it).
   */
  private void waitForLease(Track track, Instant firing, int attempt) {
    synchronized (lock) {
      Instant now = parts.clock().instant();
      if (!accepting || Duration.between(firing, now).compareTo(skewAllowance) >= 0) {
        log.debug(
            "claim refused job={} firing={}: lease held by an earlier run",
            track.job.name(),
            firing);
        idle(track);
        return;
      }
      log.debug(
          "claim refused job={} firing={}: lease busy, trying again", track.job.name(), firing);
      track.waitingForLease = true;
      track.retry =
          parts
              .timer()
              .schedule(
                  () -> parts.workers().execute(() -> attemptClaim(track, firing, attempt)),
                  LEASE_POLL);
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
                      if (track.retry == null) {
                        return; // a newer firing took over (dispatch cancelled this retry)
                      }
                      if (!accepting) {
                        idle(track);
                        return;
                      }
                      // a newer firing may have come due meanwhile: claim that one (coalescing)
                      Instant latest =
                          Objects.requireNonNullElse(
                              coalesce(track, firing, parts.clock().instant()), firing);
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
    private Duration skewAllowance = DEFAULT_SKEW_ALLOWANCE;

    private Builder() {}

    /**
     * How far replicas' clocks may run ahead of each other; default 2s. A late timer never
     * coalesces past a firing younger than this, so a replica whose clock is ahead cannot skip a
     * firing the others have not reached yet.
     */
    public Builder clockSkewAllowance(Duration allowance) {
      if (allowance == null || allowance.isNegative()) {
        throw new IllegalArgumentException("clock skew allowance must be 0 or more");
      }
      this.skewAllowance = allowance;
      return this;
    }

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
