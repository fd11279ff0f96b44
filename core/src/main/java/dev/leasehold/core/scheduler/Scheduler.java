package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.time.StoreClock;
import dev.leasehold.core.time.TaskTimer;
import dev.leasehold.core.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application service: fires every job at its scheduled instants, on exactly one replica. This
 * class keeps the life cycle, the manual trigger, the reload and the wiring. Every job's state is
 * the {@link SlotOwner}'s; a slot's life is the table of {@link SlotMachine}, applied by {@link
 * ClaimLoop} and performed by {@link SlotEffects}; the firing arithmetic is {@link FiringRules}.
 * docs/architecture.md ("The parts of the scheduler") lists every part.
 */
public final class Scheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  /** How long {@link #close} lets running jobs finish; {@code shutdown-grace} by default. */
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

  /** Default for {@link Builder#clockSkewAllowance}. */
  public static final Duration DEFAULT_SKEW_ALLOWANCE = Duration.ofSeconds(2);

  /** Default for {@link Builder#claimBatchWindow}. */
  public static final Duration DEFAULT_BATCH_WINDOW = Duration.ofMillis(5);

  private final SchedulerParts parts;
  private final Slots slots;
  private final ClaimLoop loop;
  private final FiringTimer firingTimer;
  private final JobSetChange jobSet;
  private final TriggerRequests requests;
  private final NoticeDesk desk;
  private final Shutdown shutdown;
  private final StoreTime storeTime;

  private Scheduler(Builder b) {
    boolean ownsTimer = b.timer == null;
    TaskTimer timer = ownsTimer ? TaskTimer.system("leasehold-timer") : b.timer;
    ExecutorService ownedWorkers = b.workers == null ? Shutdown.workerPool() : null;
    Executor workers = b.workers == null ? ownedWorkers : b.workers;
    StoreClock clock = new StoreClock(b.clock, b.ticker);
    this.parts = new SchedulerParts(b.node, b.store, clock, b.ticker, timer, workers);
    this.slots = new Slots(b.jobs.values(), new SlotOwner(timer), b.ticker);
    FiringRules rules = new FiringRules(b.skewAllowance);
    this.desk = new NoticeDesk(parts, slots, b.executionLog, rules, b.notices);
    History history =
        new History(
            b.executionLog,
            b.listener,
            slots.owner(),
            workers,
            b.notices == Notices.NONE ? History.Written.NONE : desk::written);
    this.loop =
        new ClaimLoop(
            slots,
            rules,
            parts,
            history,
            new UnrunFirings(parts, history),
            b.groups,
            b.batchWindow);
    this.firingTimer = new FiringTimer(slots, rules, parts, loop);
    this.storeTime = new StoreTime(slots, parts);
    this.jobSet = new JobSetChange(slots, firingTimer, loop);
    this.requests = new TriggerRequests(slots, parts, b.executionLog, loop, b.requestPoll);
    this.shutdown =
        new Shutdown(parts, slots, loop::stop, requests, history, desk, ownsTimer, ownedWorkers);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The workers a scheduler makes when it is given none (daemon threads named {@code
   * leasehold-worker-N}, made as needed), for a caller that shares them ({@link Builder#workers}).
   */
  public static ExecutorService newWorkerPool() {
    return Shutdown.workerPool();
  }

  public String node() {
    return parts.node();
  }

  public List<JobDefinition> jobs() {
    return slots.read(() -> slots.all().stream().map(s -> s.job).toList());
  }

  /** The next firing of {@code job} after now, on the store's clock as this node estimates it. */
  public Optional<Instant> nextFiring(String job) {
    JobDefinition definition = slots.read(() -> slots.get(job).job);
    return definition.schedule().nextAfter(parts.clock().instant());
  }

  /**
   * Starts firing every job, on the store's clock: its time is read before any timer is set ({@link
   * StoreTime}).
   */
  public void start() {
    storeTime.start(slots::start, firingTimer::start);
    requests.start(); // polls only when asked to (takeTriggerRequests)
    desk.start();
    log.info("scheduler started node={} jobs={}", parts.node(), jobs().size());
  }

  /**
   * Makes {@code jobs} the job set (a reload), in one event of the owner: see {@link JobSetChange}.
   * A job is changed when its name is in {@code changed} or its schedule or policy differ.
   *
   * @throws IllegalArgumentException for a duplicate job name; nothing changed
   * @throws IllegalStateException when the scheduler is not running; nothing changed
   */
  public JobChanges replaceJobs(Collection<JobDefinition> jobs, Set<String> changed) {
    List<JobDefinition> copy = List.copyOf(jobs);
    Set<String> names = Set.copyOf(changed);
    return slots.owner().call(() -> jobSet.apply(copy, names));
  }

  /**
   * Runs {@code job} once now, in the calling thread, cluster-wide once, through the job's slot as
   * a {@link ManualRun}: it takes the job's lease with {@link LeaseStore#acquire}, so it never
   * overlaps a scheduled run and never moves the watermark, and runs through the job's group, the
   * history and the notifications. The execution is recorded as {@link TriggerKind#MANUAL}.
   *
   * @return the record, or empty when the lease is held elsewhere or the job has a claim or run in
   *     flight on this node
   * @throws IllegalArgumentException for an unknown job
   * @throws LeaseStoreException when the store cannot be reached, or its answer came after the
   *     lease's validity had passed (the lease is then released and nothing runs)
   */
  public Optional<ExecutionRecord> trigger(String job) {
    JobSlot slot = slots.read(() -> slots.get(job));
    ManualRun run =
        ManualRun.onCallingThread(parts.clock().instant().truncatedTo(ChronoUnit.MILLIS));
    slots.owner().execute(() -> loop.apply(slot, new SlotMachine.Trigger(run)));
    return run.await();
  }

  /** Takes {@code request} (a backfill's) in the calling thread, as a daemon takes requests. */
  public Optional<ExecutionRecord> takeHere(TriggerRequest request) {
    return requests.takeHere(request);
  }

  /**
   * Graceful stop ({@link Shutdown}): claims nothing more, waits up to {@code grace} for running
   * jobs, then asks the rest to stop (they are interrupted) and waits for them to end and release
   * their leases.
   */
  public void stop(Duration grace) {
    if (shutdown.run(grace)) {
      log.info("scheduler stopped node={}", parts.node());
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
    private Duration batchWindow = DEFAULT_BATCH_WINDOW;
    private GroupSeats groups = GroupSeats.NONE;
    private Duration requestPoll;
    private Notices notices = Notices.NONE;

    private Builder() {}

    /**
     * Takes the requests of {@code leasehold trigger} ({@link TriggerRequest}) for this scheduler's
     * jobs, reading the request queue every {@code every} once started (a daemon: 1 s). Off by
     * default: a scheduler that only runs a job in the calling process takes no requests.
     */
    public Builder takeTriggerRequests(Duration every) {
      if (every == null || every.isNegative() || every.isZero()) {
        throw new IllegalArgumentException("the request poll must be positive");
      }
      this.requestPoll = every;
      return this;
    }

    /**
     * The jobs' notifiers: each firing's last row that a notifier wants is sent by one replica, and
     * by another when that one dies before it could mark it sent ({@link NoticeDesk}).
     */
    public Builder notices(Notices notices) {
      this.notices = Objects.requireNonNull(notices);
      return this;
    }

    /**
     * The concurrency groups, name to max-concurrent: the jobs of a group run at most that many at
     * once across the cluster, through slot leases in the store ({@link GroupSeats}).
     */
    public Builder groups(Map<String, Integer> groups) {
      this.groups = new GroupSeats(groups);
      return this;
    }

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
      groups.check(jobs.values());
      return new Scheduler(this);
    }
  }
}
