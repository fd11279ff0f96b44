package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.time.Cancellable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's place in the scheduler: its phase, the firings queued behind its claim or run, and the
 * firings it gave up that are still to be reported. Owned by the scheduler's {@link SlotOwner}:
 * every method that changes the slot checks that it runs inside the owner, and {@link #enter}
 * refuses a phase change that {@link Phase#canBecome} does not list.
 *
 * <p>Only one claim or run of a job is in flight on a node at a time; firings that come due
 * meanwhile wait in {@link #queue} (bounded, in firing order). A firing this node could not run
 * (lease held by an earlier firing past the skew allowance, store unreachable past the grace, a
 * queued firing that waited behind this node's own run) goes to {@link #giveUp} and is reported
 * through a claim on it later ({@link UnrunFirings}).
 */
final class JobSlot {
  private static final Logger log = LoggerFactory.getLogger(JobSlot.class);

  /**
   * What the job is doing on this node. A new phase needs its row in {@link #canBecome} (the
   * compiler asks for it) and the rows of the phases that may lead to it.
   */
  enum Phase {
    /** Nothing in flight: the next firing, or a report of unrun firings, is claimed at once. */
    IDLE,
    /** A claim step ({@link ClaimStep}: a claim, or reports only) is batched or in flight. */
    CLAIMING,
    /** The store failed; a retry waits on the timer, and a new firing ends the wait. */
    BACKING_OFF,
    /** The lease is held by an earlier firing; the claim is tried again shortly. */
    WAITING_FOR_LEASE,
    /** The job runs here under its lease. */
    RUNNING;

    /** The transitions the scheduler makes; every other one is a bug and is refused. */
    boolean canBecome(Phase next) {
      return switch (this) {
        case IDLE -> next == CLAIMING;
        case CLAIMING -> next != CLAIMING;
        case BACKING_OFF, WAITING_FOR_LEASE -> next == CLAIMING || next == IDLE;
        case RUNNING -> next == IDLE;
      };
    }
  }

  /** Why a firing was not run here, and how it is recorded if this node reports it. */
  record Unrun(Outcome outcome, String why) {}

  /** Firings that may wait behind one claim or run; more are dropped, oldest first. */
  static final int MAX_QUEUED = 64;

  /** The job as last configured; a reload may replace it ({@link #replace}), the name stays. */
  JobDefinition job;

  private final SlotOwner owner;
  private boolean retired;
  private Phase phase = Phase.IDLE;

  /** Whether this node recorded a paused firing of the job and polls for its resume. */
  private boolean watchingResume;

  private long step;
  private long timerGeneration;
  private Cancellable retry;
  private Cancellable nextFiring;
  private Cancellable settleTimer;
  private JobRun running;
  private final List<JobRun> overlapping = new ArrayList<>();
  private final TreeSet<Instant> queued = new TreeSet<>();
  private final TreeMap<Instant, Unrun> unrun = new TreeMap<>();

  JobSlot(JobDefinition job, SlotOwner owner) {
    this.job = job;
    this.owner = owner;
  }

  /**
   * Event (reload): the job's new definition, from its next claim on; a claim or run in flight
   * keeps the one it started with.
   */
  void replace(JobDefinition next) {
    owner.check();
    if (!next.name().equals(job.name())) {
      throw new IllegalArgumentException("job '" + job.name() + "' cannot become " + next.name());
    }
    job = next;
  }

  /** Event (reload): the job was removed; no firing is taken from now on. */
  void retire() {
    owner.check();
    retired = true;
    cancelTimers();
    clearQueued();
  }

  /** Whether a reload removed the job. */
  boolean retired() {
    owner.check();
    return retired;
  }

  Phase phase() {
    owner.check();
    return phase;
  }

  boolean busy() {
    return phase() != Phase.IDLE;
  }

  /** Whether a claim or any run is in flight, runs under leases of their own included. */
  boolean inFlight() {
    return busy() || !overlapping.isEmpty();
  }

  /** A run that holds a lease of its own ({@link Overlap#ALLOW}) starts, or ({@code !on}) ended. */
  void overlapping(JobRun run, boolean on) {
    owner.check();
    if (on) {
      overlapping.add(run);
    } else {
      overlapping.remove(run);
    }
  }

  /**
   * Every run in flight here: the one of {@link Phase#RUNNING} and those under leases of their own.
   */
  List<JobRun> runs() {
    owner.check();
    List<JobRun> runs = new ArrayList<>(overlapping);
    running().ifPresent(runs::add);
    return runs;
  }

  /**
   * Enters {@code next} and returns the step number: a timer task started for this phase acts only
   * if the slot is still in the same step when it fires ({@link #inStep}).
   *
   * @throws IllegalStateException for a transition {@link Phase#canBecome} does not allow, or when
   *     called outside the owner; the slot is then unchanged
   */
  long enter(Phase next) {
    owner.check();
    if (!phase.canBecome(next)) {
      throw new IllegalStateException(
          "job '" + job.name() + "': no transition from " + phase + " to " + next);
    }
    phase = next;
    if (retry != null) {
      retry.cancel(); // leaving a backoff or a lease wait calls its timer off
    }
    retry = null;
    if (next != Phase.RUNNING) {
      running = null;
    }
    return ++step;
  }

  boolean inStep(long expected) {
    owner.check();
    return step == expected;
  }

  /** The retry timer of {@link Phase#BACKING_OFF} or {@link Phase#WAITING_FOR_LEASE}. */
  void retry(Cancellable task) {
    owner.check();
    retry = task;
  }

  /** The run of the {@link Phase#RUNNING} step just entered. */
  void running(JobRun run) {
    owner.check();
    running = run;
  }

  Optional<JobRun> running() {
    owner.check();
    return Optional.ofNullable(running);
  }

  void nextFiring(Cancellable timer) {
    owner.check();
    nextFiring = timer;
  }

  /** Calls off the pending firing timer; a timer event already handed over is then ignored. */
  void cancelNextFiring() {
    owner.check();
    if (nextFiring != null) {
      nextFiring.cancel();
    }
    nextFiring = null;
    timerGeneration++;
  }

  /** Counts {@link #cancelNextFiring}: a timer acts only in the generation that set it. */
  long timerGeneration() {
    owner.check();
    return timerGeneration;
  }

  /** The pause before undecided reports are tried again; replaces an earlier one. */
  void settleTimer(Cancellable timer) {
    owner.check();
    if (settleTimer != null) {
      settleTimer.cancel();
    }
    settleTimer = timer;
  }

  /** Cancels every timer of this slot (stop). */
  void cancelTimers() {
    owner.check();
    timerGeneration++;
    for (Cancellable c : new Cancellable[] {nextFiring, settleTimer, retry}) {
      if (c != null) {
        c.cancel();
      }
    }
    nextFiring = null;
    settleTimer = null;
  }

  /**
   * Queues a firing behind the claim or run in flight; past {@link #MAX_QUEUED} drops the oldest. A
   * job that buffers one firing ({@link Overlap#BUFFER_ONE}) keeps at most one waiting: a firing
   * that comes due while this slot waits for a lease, or while one is already queued behind its
   * run, is given up, to be reported as skipped.
   */
  void queue(Instant firing) {
    owner.check();
    if (job.policy().overlap().buffersOne()
        && (phase == Phase.WAITING_FOR_LEASE || !queued.isEmpty())) {
      giveUp(
          firing,
          Outcome.SKIPPED,
          "a firing of the job already waits (overlap " + job.policy().overlap().label() + ")");
      return;
    }
    queued.add(firing);
    if (queued.size() > MAX_QUEUED) {
      log.warn(
          "firing not run job={} firing={}: too many firings queued",
          job.name(),
          queued.pollFirst());
    }
  }

  /**
   * The next queued firing to claim. Firings that waited behind this node's own run ({@code ran},
   * or {@code null} after a claim) for longer than the skew allowance are an overlap: given up, to
   * be reported as skipped while that run's lease held, else missed; but the one firing a
   * buffer-one job keeps behind that run ({@link FiringRules#buffered}) is claimed. Firings past
   * their grace are given up as missed.
   */
  Optional<Instant> nextQueued(Instant now, JobContext ran, FiringRules rules) {
    owner.check();
    for (Instant f = queued.pollFirst(); f != null; f = queued.pollFirst()) {
      if (ran != null
          && rules.olderThanSkew(f, now)
          && !FiringRules.buffered(job, f, ran.firing(), now)) {
        String why = "previous firing " + ran.firing() + " still running";
        boolean lost = ran.leaseLost();
        giveUp(f, lost ? Outcome.MISSED : Outcome.SKIPPED, lost ? why + " (lease lost)" : why);
      } else if (FiringRules.isMissed(job.policy().misfireGrace(), f, now)) {
        log.info("firing not run here job={} firing={}: past misfire-grace", job.name(), f);
        giveUp(f, Outcome.MISSED, "it came due while a claim was in flight");
      } else {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  void clearQueued() {
    owner.check();
    queued.clear();
  }

  /** Remembers a firing this node did not run, to be reported; past the bound drops the oldest. */
  void giveUp(Instant firing, Outcome outcome, String why) {
    owner.check();
    unrun.putIfAbsent(firing, new Unrun(outcome, why));
    if (unrun.size() > MAX_QUEUED) {
      log.warn(
          "firing not run job={} firing={}: too many unreported firings; not reported",
          job.name(),
          unrun.pollFirstEntry().getKey());
    }
  }

  boolean hasUnrun() {
    owner.check();
    return !unrun.isEmpty();
  }

  /** The firings to report, oldest first. */
  List<Map.Entry<Instant, Unrun>> unrun() {
    owner.check();
    return new ArrayList<>(unrun.entrySet());
  }

  void settled(Instant firing) {
    owner.check();
    unrun.remove(firing);
  }

  /** Starts watching for the job's resume; false when this node already watches. */
  boolean watchResume() {
    owner.check();
    if (watchingResume) {
      return false;
    }
    watchingResume = true;
    return true;
  }

  /** The watch for the job's resume ended (resumed, or the scheduler stops). */
  void resumeWatched() {
    owner.check();
    watchingResume = false;
  }
}
