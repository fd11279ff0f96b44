package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.scheduler.JobSlot.Phase;
import dev.leasehold.core.scheduler.SlotEffect.Acquire;
import dev.leasehold.core.scheduler.SlotEffect.Answer;
import dev.leasehold.core.scheduler.SlotEffect.Backoff;
import dev.leasehold.core.scheduler.SlotEffect.Claim;
import dev.leasehold.core.scheduler.SlotEffect.FollowRetry;
import dev.leasehold.core.scheduler.SlotEffect.ForgetRetry;
import dev.leasehold.core.scheduler.SlotEffect.GiveUp;
import dev.leasehold.core.scheduler.SlotEffect.Next;
import dev.leasehold.core.scheduler.SlotEffect.PollLease;
import dev.leasehold.core.scheduler.SlotEffect.Queue;
import dev.leasehold.core.scheduler.SlotEffect.Ran;
import dev.leasehold.core.scheduler.SlotEffect.RecordPaused;
import dev.leasehold.core.scheduler.SlotEffect.Refuse;
import dev.leasehold.core.scheduler.SlotEffect.ReleaseLate;
import dev.leasehold.core.scheduler.SlotEffect.Replace;
import dev.leasehold.core.scheduler.SlotEffect.Report;
import dev.leasehold.core.scheduler.SlotEffect.ReportLate;
import dev.leasehold.core.scheduler.SlotEffect.Run;
import dev.leasehold.core.scheduler.SlotEffect.SettleLater;
import dev.leasehold.core.scheduler.SlotEffect.WatchResume;
import java.time.Instant;
import java.util.List;

/**
 * A job slot's life as a table: from its phase and an event to its next phase and the effects to
 * perform, in order. Pure: no clock, no state, no threads. What an event's outcome depends on
 * beyond the phase (whether the scheduler takes firings, whether a firing is older than the skew
 * allowance, whether a retry is worth it) comes with the event, decided by the owner when the event
 * happened, with {@link FiringRules}.
 *
 * <p>The {@link SlotOwner} applies events one at a time ({@link ClaimLoop#apply}): it asks {@link
 * #next}, enters the new phase when it differs ({@link JobSlot#enter}) and hands the effects to
 * {@link SlotEffects}, which performs them: store calls and job bodies on workers, whose ends come
 * back as new events. A pair the table does not list is a bug: {@link #next} refuses it and the
 * slot stays as it was.
 */
final class SlotMachine {
  private SlotMachine() {}

  /** Where events go in: the owner's {@link ClaimLoop#apply}, inside an event of the owner. */
  interface Feed {
    void apply(JobSlot slot, Event event);
  }

  /** What happens to a slot. */
  sealed interface Event {}

  /**
   * A firing came due (its timer, a retry's instant, a resume, a catch-up); {@code replaces}: it
   * stops this node's run of the job ({@link Overlap#REPLACE}, not a retry's instant).
   */
  record Due(Instant firing, boolean replaces) implements Event {
    Due(Instant firing) {
      this(firing, false);
    }
  }

  /** This node will not run {@code firing} (its timer came past the grace): report it later. */
  record NotRun(Instant firing, Outcome outcome, String why) implements Event {}

  /**
   * The claim won; {@code late} says why the answer came too late to run (after the lease's
   * validity or the firing's grace), null when in time.
   */
  record Won(Instant firing, Lease lease, long sentNanos, String late) implements Event {}

  /**
   * The lease is held by an earlier firing ({@code holder}, may be null); {@code buffered}: the
   * firing may wait for that run to end ({@link Overlap#BUFFER_ONE}, by {@link
   * FiringRules#buffered}).
   */
  record Held(
      Instant firing,
      int attempt,
      String holder,
      boolean accepting,
      boolean retry,
      boolean olderThanSkew,
      boolean buffered)
      implements Event {}

  /** The watermark is at or past the firing: someone ran or reported it. */
  record AlreadyRun(Instant firing) implements Event {}

  /** The claim met the job's pause and recorded the firing: this node writes its row. */
  record Paused(Instant firing) implements Event {}

  /** The store failed; {@code worthRetrying} by {@link FiringRules#worthRetrying}. */
  record Failed(Instant firing, int attempt, boolean accepting, boolean worthRetrying)
      implements Event {}

  /** The lease poll of a {@link Phase#WAITING_FOR_LEASE} step went off. */
  record LeasePoll(Instant firing, int attempt, boolean accepting) implements Event {}

  /** The backoff ended: {@code latest} is the latest due firing, {@code missed} past its grace. */
  record BackoffEnded(Instant latest, int attempt, boolean accepting, boolean missed)
      implements Event {}

  /** A report step's reports were sent. */
  record Reported() implements Event {}

  /** The late win's report ended. */
  record LateReported() implements Event {}

  /** The paused firing's row was written. */
  record PauseRecorded() implements Event {}

  /** The run ended; {@code row} is its record ({@code null} when that failed unexpectedly). */
  record RunEnded(JobContext ran, ExecutionRecord row, FiringRules.AfterRun after)
      implements Event {}

  /**
   * The won firing's run holds a lease of its own and the job's lease was released ({@link
   * Overlap#ALLOW}): the slot is free for the next firing while the run goes on.
   */
  record Detached() implements Event {}

  /** A manual run is asked for: it takes the job's lease with {@code acquire} when idle here. */
  record Trigger(ManualRun run) implements Event {}

  /**
   * The manual run's acquisition answered: {@code lease} null when held elsewhere or on {@code
   * error}; {@code late} when the answer came after the lease's validity.
   */
  record Acquired(ManualRun run, Lease lease, long sentNanos, boolean late, RuntimeException error)
      implements Event {}

  /** The scheduler stops: a step not sent, a backoff or a lease poll is called off. */
  record Stopped() implements Event {}

  /**
   * The slot went idle: {@code queued} is the next queued firing still worth claiming (null: none),
   * {@code unrun} whether firings wait to be reported, {@code afterReports} whether a report step
   * just left some undecided.
   */
  record Idle(Instant queued, boolean unrun, boolean afterReports, boolean accepting)
      implements Event {}

  /** The pause after undecided reports ended. */
  record SettleDue(boolean unrun, boolean accepting) implements Event {}

  /** The phase a slot moves to and what is done, in order. */
  record Transition(Phase to, List<SlotEffect> effects) {
    static Transition of(Phase to, SlotEffect... effects) {
      return new Transition(to, List.of(effects));
    }
  }

  private static final Next NEXT = new Next(null, false);

  /**
   * The table.
   *
   * @throws IllegalStateException for a pair the table does not list
   */
  static Transition next(Phase phase, Event event) {
    if (event instanceof Trigger m) {
      return phase == Phase.IDLE
          ? Transition.of(Phase.CLAIMING, new Acquire(m.run()))
          : Transition.of(phase, new Refuse(m.run()));
    }
    Transition t =
        switch (phase) {
          case IDLE -> idle(event);
          case CLAIMING -> claiming(event);
          case WAITING_FOR_LEASE -> waiting(event);
          case BACKING_OFF -> backingOff(event);
          case RUNNING -> running(event);
        };
    if (t == null) {
      throw new IllegalStateException(
          "no transition from " + phase + " on " + event.getClass().getSimpleName());
    }
    return t;
  }

  private static Transition idle(Event event) {
    if (event instanceof Due d) {
      return Transition.of(Phase.CLAIMING, new Claim(d.firing(), 1));
    }
    if (event instanceof NotRun n) {
      return Transition.of(Phase.CLAIMING, giveUp(n), new Report());
    }
    if (event instanceof Idle i) {
      if (i.queued() != null) {
        return Transition.of(Phase.CLAIMING, new Claim(i.queued(), 1));
      }
      if (!i.unrun() || !i.accepting()) {
        return Transition.of(Phase.IDLE);
      }
      return i.afterReports()
          ? Transition.of(Phase.IDLE, new SettleLater())
          : Transition.of(Phase.CLAIMING, new Report());
    }
    if (event instanceof SettleDue s) {
      return s.unrun() && s.accepting()
          ? Transition.of(Phase.CLAIMING, new Report())
          : Transition.of(Phase.IDLE);
    }
    return null;
  }

  private static Transition claiming(Event event) {
    if (event instanceof Due d) {
      return Transition.of(Phase.CLAIMING, new Queue(d.firing()));
    }
    if (event instanceof NotRun n) {
      return Transition.of(Phase.CLAIMING, giveUp(n));
    }
    if (event instanceof Won w) {
      return w.late() != null
          ? Transition.of(Phase.CLAIMING, new ReportLate(w.firing(), w.lease(), w.late()))
          : Transition.of(Phase.RUNNING, new Run(w.firing(), w.lease(), w.sentNanos(), null));
    }
    if (event instanceof Held h) {
      if (!h.accepting()) {
        return Transition.of(Phase.IDLE, NEXT);
      }
      if (h.olderThanSkew() && !h.buffered()) {
        // a retry is not a firing: nothing to report as missed
        SlotEffect why =
            h.retry()
                ? new ForgetRetry(h.firing())
                : new GiveUp(
                    h.firing(),
                    Outcome.MISSED,
                    "its lease was held by an earlier firing"
                        + (h.holder() == null ? "" : " of " + h.holder()));
        return Transition.of(Phase.IDLE, why, NEXT);
      }
      return Transition.of(Phase.WAITING_FOR_LEASE, new PollLease(h.firing(), h.attempt()));
    }
    if (event instanceof Acquired a) {
      if (a.lease() == null) {
        return Transition.of(Phase.IDLE, new Answer(a.run(), a.error()), NEXT);
      }
      return a.late()
          ? Transition.of(Phase.CLAIMING, new ReleaseLate(a.run(), a.lease()))
          : Transition.of(
              Phase.RUNNING, new Run(a.run().firing(), a.lease(), a.sentNanos(), a.run()));
    }
    if (event instanceof AlreadyRun a) {
      return Transition.of(Phase.IDLE, new FollowRetry(a.firing()), NEXT);
    }
    if (event instanceof Paused p) {
      return Transition.of(Phase.CLAIMING, new RecordPaused(p.firing()));
    }
    if (event instanceof PauseRecorded) {
      return Transition.of(Phase.IDLE, NEXT, new WatchResume());
    }
    if (event instanceof Failed f) {
      if (!f.accepting()) {
        return Transition.of(Phase.IDLE, NEXT);
      }
      return f.worthRetrying()
          ? Transition.of(Phase.BACKING_OFF, new Backoff(f.firing(), f.attempt()))
          : Transition.of(Phase.IDLE, unreachable(f.firing()), NEXT);
    }
    if (event instanceof Reported) {
      return Transition.of(Phase.IDLE, new Next(null, true));
    }
    if (event instanceof LateReported || event instanceof Stopped) {
      return Transition.of(Phase.IDLE, NEXT);
    }
    return null;
  }

  private static Transition waiting(Event event) {
    if (event instanceof Due d) {
      return Transition.of(Phase.WAITING_FOR_LEASE, new Queue(d.firing()));
    }
    if (event instanceof NotRun n) {
      return Transition.of(Phase.WAITING_FOR_LEASE, giveUp(n));
    }
    if (event instanceof LeasePoll p) {
      return p.accepting()
          ? Transition.of(Phase.CLAIMING, new Claim(p.firing(), p.attempt()))
          : Transition.of(Phase.IDLE, NEXT);
    }
    if (event instanceof Stopped) {
      return Transition.of(Phase.IDLE, NEXT);
    }
    return null;
  }

  private static Transition backingOff(Event event) {
    if (event instanceof Due d) {
      // waiting out a store error: a new firing is a reason to try now
      return Transition.of(Phase.CLAIMING, new Claim(d.firing(), 1));
    }
    if (event instanceof NotRun n) {
      return Transition.of(Phase.BACKING_OFF, giveUp(n));
    }
    if (event instanceof BackoffEnded b) {
      if (!b.accepting()) {
        return Transition.of(Phase.IDLE, NEXT);
      }
      return b.missed()
          ? Transition.of(Phase.IDLE, unreachable(b.latest()), NEXT)
          : Transition.of(Phase.CLAIMING, new Claim(b.latest(), b.attempt() + 1));
    }
    if (event instanceof Stopped) {
      return Transition.of(Phase.IDLE, NEXT);
    }
    return null;
  }

  private static Transition running(Event event) {
    if (event instanceof Due d) {
      return d.replaces()
          ? Transition.of(Phase.RUNNING, new Queue(d.firing()), new Replace(d.firing()))
          : Transition.of(Phase.RUNNING, new Queue(d.firing()));
    }
    if (event instanceof Detached) {
      return Transition.of(Phase.IDLE, NEXT);
    }
    if (event instanceof NotRun n) {
      return Transition.of(Phase.RUNNING, giveUp(n));
    }
    if (event instanceof RunEnded r) {
      Next next = new Next(r.ran(), false);
      return r.row() == null
          ? Transition.of(Phase.IDLE, next)
          : Transition.of(Phase.IDLE, new Ran(r.row(), r.after()), next);
    }
    return null;
  }

  private static GiveUp giveUp(NotRun n) {
    return new GiveUp(n.firing(), n.outcome(), n.why());
  }

  private static GiveUp unreachable(Instant firing) {
    return new GiveUp(firing, Outcome.MISSED, "the store was unreachable");
  }
}
