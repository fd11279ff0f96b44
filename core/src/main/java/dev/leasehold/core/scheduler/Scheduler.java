package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
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
 * The application service: fires every job at its scheduled instants, on exactly one replica. This
 * class keeps the life cycle (start, stop), the manual trigger and the wiring; the parts are:
 *
 * <ul>
 *   <li>{@link FiringRules}: the firing arithmetic (missed, skew horizon, catch-up, coalescing,
 *       retry worth, backoff), pure and table-tested;
 *   <li>{@link FiringTimer}: one timer task per job's next firing; catch-up at start (G9);
 *   <li>{@link JobSlot} in {@link Slots}: each job's phase and queue, under one lock;
 *   <li>{@link ClaimLoop}: dispatch, batched claims ({@link LeaseStore#tryClaim}, {@link
 *       LeaseStore#claimAll}), one step per answer, backoff (G8);
 *   <li>{@link JobRun} with its {@link LeaseWatchdog}: the body under a lease (G4, G5);
 *   <li>{@link UnrunFirings}: firings nobody ran, reported once cluster-wide through a claim;
 *   <li>{@link History}: the one writer of history rows.
 * </ul>
 */
public final class Scheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

  /** Default for {@link Builder#clockSkewAllowance}. */
  public static final Duration DEFAULT_SKEW_ALLOWANCE = Duration.ofSeconds(2);

  /** Default for {@link Builder#claimBatchWindow}. */
  public static final Duration DEFAULT_BATCH_WINDOW = Duration.ofMillis(5);

  private final SchedulerParts parts;
  private final Slots slots;
  private final History history;
  private final ClaimLoop loop;
  private final FiringTimer firingTimer;
  private final boolean ownsTimer;
  private final ExecutorService ownedWorkers;

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
    this.slots = new Slots(b.jobs.values(), b.ticker);
    this.history = new History(b.executionLog, b.listener, timer, workers);
    FiringRules rules = new FiringRules(b.skewAllowance);
    this.loop =
        new ClaimLoop(
            slots, rules, parts, history, new UnrunFirings(slots, parts, history), b.batchWindow);
    this.firingTimer = new FiringTimer(slots, rules, parts, loop);
  }

  public static Builder builder() {
    return new Builder();
  }

  public String node() {
    return parts.node();
  }

  public List<JobDefinition> jobs() {
    return slots.all().stream().map(s -> s.job).toList();
  }

  /** The next firing of {@code job} after now, as this node's clock sees it. */
  public Optional<Instant> nextFiring(String job) {
    return slots.get(job).job.schedule().nextAfter(parts.clock().instant());
  }

  /** Starts firing every job. */
  public void start() {
    synchronized (slots.lock()) {
      slots.start();
      firingTimer.start();
    }
    log.info("scheduler started node={} jobs={}", parts.node(), slots.all().size());
  }

  /**
   * Runs {@code job} once now, in the calling thread, cluster-wide once: it takes the job's lease
   * with {@link LeaseStore#acquire}, so it never overlaps a scheduled run and never moves the
   * watermark. The execution is recorded as {@link TriggerKind#MANUAL}.
   *
   * @return the record, or empty when the lease is held elsewhere
   * @throws IllegalArgumentException for an unknown job
   * @throws LeaseStoreException when the store cannot be reached, or its answer came after the
   *     lease's validity had passed (the lease is then released and nothing runs)
   */
  public Optional<ExecutionRecord> trigger(String job) {
    JobDefinition definition = slots.get(job).job;
    long sent = parts.ticker().nanoTime();
    Optional<Lease> lease =
        parts.store().acquire(definition.name(), parts.node(), definition.policy().ttl());
    if (lease.isEmpty()) {
      return Optional.empty();
    }
    if (!LeaseWatchdog.answeredInTime(sent, lease.get().ttl(), parts.ticker().nanoTime())) {
      JobRun.release(parts.store(), lease.get());
      throw new LeaseStoreException(
          "the store's answer came after the lease's validity had passed; nothing ran");
    }
    Instant now = parts.clock().instant().truncatedTo(ChronoUnit.MILLIS);
    JobRun run = new JobRun(definition, lease.get(), now, 1, TriggerKind.MANUAL, sent, parts);
    ExecutionRecord record = run.run();
    history.record(record);
    return Optional.of(record);
  }

  /**
   * Graceful stop: claims nothing more, waits up to {@code grace} for running jobs, then asks the
   * rest to stop (they are interrupted) and waits for them to end and release their leases.
   */
  public void stop(Duration grace) {
    List<JobRun> stragglers = new ArrayList<>();
    synchronized (slots.lock()) {
      if (!slots.stop()) {
        return;
      }
      loop.stop();
      slots.awaitIdle(grace);
      for (JobSlot slot : slots.all()) {
        slot.running().ifPresent(stragglers::add);
      }
    }
    for (JobRun run : stragglers) {
      run.stop(StopReason.SHUTDOWN, "shutdown grace ran out");
    }
    synchronized (slots.lock()) {
      slots.awaitIdle(Duration.ofSeconds(30));
    }
    history.flushAtStop();
    if (ownsTimer) {
      parts.timer().close();
    }
    if (ownedWorkers != null) {
      ownedWorkers.shutdown();
    }
    log.info("scheduler stopped node={}", parts.node());
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
    private Duration batchWindow = DEFAULT_BATCH_WINDOW;

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

    /**
     * At most one batch of claims ({@link LeaseStore#claimAll}) goes to the store per window;
     * default 5 ms. A claim that comes when no batch went out within the last window goes at once,
     * so batching delays claims only during a burst, by up to the window; 0 sends every timer
     * tick's claims at once.
     */
    public Builder claimBatchWindow(Duration window) {
      if (window == null || window.isNegative()) {
        throw new IllegalArgumentException("claim batch window must be 0 or more");
      }
      this.batchWindow = window;
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
