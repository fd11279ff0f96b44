package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.hold.LeaseTiming;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one executor of a slot's effects ({@link SlotEffect}), inside the {@link SlotOwner}: claim
 * steps join the {@link ClaimBatch}, timers are set on the owner, and blocking work (the run, a
 * late claim's report, a paused row) goes to the workers, whose end comes back to the owner as an
 * event through the {@link SlotMachine.Feed}. A timer set for a phase feeds its event only if the
 * slot is still in that phase's step when it goes off ({@link JobSlot#inStep}).
 */
final class SlotEffects {
  private static final Logger log = LoggerFactory.getLogger(SlotEffects.class);

  /** How often a claim refused by an earlier firing's lease is tried again. */
  static final Duration LEASE_POLL = Duration.ofMillis(100);

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final History history;
  private final UnrunFirings unrun;
  private final Retries retries;
  private final ClaimBatch batch;
  private final GroupSeats groups;
  private final ResumeWatch resume;
  private final SlotMachine.Feed feed;
  private final SlotOwner owner;
  private final OverlappingRuns overlapping;

  SlotEffects(
      Slots slots,
      FiringRules rules,
      SchedulerParts parts,
      History history,
      UnrunFirings unrun,
      Retries retries,
      ClaimBatch batch,
      GroupSeats groups,
      SlotMachine.Feed feed) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.history = history;
    this.unrun = unrun;
    this.retries = retries;
    this.batch = batch;
    this.groups = groups;
    this.feed = feed;
    this.owner = slots.owner();
    this.resume = new ResumeWatch(slots, rules, parts, feed);
    this.overlapping = new OverlappingRuns(slots, parts, retries, groups, feed, this);
  }

  /** Event: performs {@code effect}; {@code step} is the step of the phase just entered. */
  void perform(JobSlot slot, long step, SlotEffect effect) {
    if (effect instanceof SlotEffect.Claim c) {
      batch.add(new ClaimStep.Claim(slot, slot.job, c.firing(), c.attempt()));
    } else if (effect instanceof SlotEffect.Report) {
      batch.add(new ClaimStep.Report(slot, slot.job));
    } else if (effect instanceof SlotEffect.Queue q) {
      log.debug(
          "firing job={} firing={}: queued behind its claim or run", slot.job.name(), q.firing());
      slot.queue(q.firing());
    } else if (effect instanceof SlotEffect.Run r) {
      run(slot, r);
    } else if (effect instanceof SlotEffect.Replace r) {
      slot.running()
          .filter(run -> run.context().firing().isBefore(r.firing()))
          .ifPresent(run -> run.stop(StopReason.REPLACED, "replaced by firing " + r.firing()));
    } else if (effect instanceof SlotEffect.Acquire a) {
      acquire(slot, a.run());
    } else if (effect instanceof SlotEffect.Refuse r) {
      r.run().done(null);
    } else if (effect instanceof SlotEffect.Answer a) {
      if (a.error() != null) {
        a.run().failed(a.error());
      } else {
        a.run().done(null);
      }
    } else if (effect instanceof SlotEffect.ReleaseLate l) {
      l.run()
          .parts(parts)
          .workers()
          .execute(
              () -> {
                try {
                  parts.release(l.lease());
                } finally {
                  owner.execute(
                      () -> {
                        feed.apply(slot, new SlotMachine.LateReported());
                        l.run()
                            .failed(
                                new LeaseStoreException(
                                    "the store's answer came after the lease's validity had"
                                        + " passed; nothing ran"));
                      });
                }
              });
    } else if (effect instanceof SlotEffect.ReportLate l) {
      JobSlot.Unrun late = new JobSlot.Unrun(Outcome.MISSED, l.why());
      JobDefinition job = slot.job;
      onWorker(
          () -> unrun.report(job, l.firing(), l.lease(), late),
          slot,
          new SlotMachine.LateReported());
    } else if (effect instanceof SlotEffect.RecordPaused p) {
      JobDefinition job = slot.job;
      onWorker(() -> unrun.recordPaused(job, p.firing()), slot, new SlotMachine.PauseRecorded());
    } else if (effect instanceof SlotEffect.GiveUp g) {
      slot.giveUp(g.firing(), g.outcome(), g.why());
    } else if (effect instanceof SlotEffect.PollLease p) {
      slot.retry(owner.later(LEASE_POLL, () -> leasePoll(slot, step, p)));
    } else if (effect instanceof SlotEffect.Backoff b) {
      slot.retry(owner.later(FiringRules.backoff(b.attempt()), () -> backoffEnded(slot, step, b)));
    } else if (effect instanceof SlotEffect.FollowRetry f) {
      retries.refused(slot, f.firing());
    } else if (effect instanceof SlotEffect.ForgetRetry f) {
      retries.forget(slot, f.firing());
    } else if (effect instanceof SlotEffect.Ran r) {
      retries.ran(slot, r.row(), r.after());
    } else if (effect instanceof SlotEffect.Next n) {
      next(slot, n);
    } else if (effect instanceof SlotEffect.SettleLater) {
      Duration pause = FiringRules.reportPause(slot.job.policy().ttl());
      slot.settleTimer(owner.later(pause, () -> settleDue(slot)));
    } else if (effect instanceof SlotEffect.WatchResume) {
      resume.watch(slot);
    } else {
      throw new IllegalStateException("no executor for " + effect);
    }
  }

  /** The manual run takes the job's lease, on its thread; the answer comes back as an event. */
  private void acquire(JobSlot slot, ManualRun manual) {
    JobDefinition job = slot.job;
    manual
        .parts(parts)
        .workers()
        .execute(
            () -> {
              long sent = parts.ticker().nanoTime();
              SlotMachine.Event answer;
              try {
                Lease lease =
                    parts
                        .store()
                        .acquire(job.name(), parts.node(), job.policy().ttl())
                        .orElse(null);
                boolean late =
                    lease != null
                        && !LeaseTiming.answeredInTime(
                            sent, lease.ttl(), parts.ticker().nanoTime());
                answer = new SlotMachine.Acquired(manual, lease, sent, late, null);
              } catch (RuntimeException e) {
                answer = new SlotMachine.Acquired(manual, null, sent, false, e);
              }
              SlotMachine.Event acquired = answer;
              owner.execute(() -> feed.apply(slot, acquired));
            });
  }

  /**
   * The lease is this node's: the firing runs here, even if a stop began meanwhile (the shutdown
   * grace applies to it like to any run), through the job's group; its record is written on the
   * thread that ends it, and what follows it (a retry) is planned from that record. A manual run
   * first does its {@link ManualRun#take} under the lease, on its own thread.
   */
  private void run(JobSlot slot, SlotEffect.Run r) {
    JobDefinition job = slot.job;
    ManualRun manual = r.manual();
    Retries.Run which =
        manual == null ? retries.runOf(slot, r.firing()) : new Retries.Run(r.firing(), 1);
    if (manual == null && job.policy().overlap() == Overlap.ALLOW) {
      overlapping.start(slot, job, r, which);
    } else {
      runHeld(slot, job, r, which);
    }
  }

  /**
   * Event: the run goes under the job's lease, the slot {@link JobSlot.Phase#RUNNING} until it
   * ends.
   */
  void runHeld(JobSlot slot, JobDefinition job, SlotEffect.Run r, Retries.Run which) {
    ManualRun manual = r.manual();
    SchedulerParts on = manual == null ? parts : manual.parts(parts);
    JobRun run =
        new JobRun(
            job,
            r.lease(),
            which.firing(),
            which.attempt(),
            manual == null ? TriggerKind.SCHEDULED : manual.kind(),
            manual == null ? 0 : manual.upstreamFence(),
            r.sentNanos(),
            r.lease().fence(),
            on);
    slot.running(run);
    Consumer<ExecutionRecord> done =
        ended -> {
          ExecutionRecord row = ended == null || manual == null ? ended : manual.row(ended);
          FiringRules.AfterRun after = FiringRules.AfterRun.FINAL;
          try {
            after = recorded(job, row);
          } finally {
            SlotMachine.RunEnded end = new SlotMachine.RunEnded(run.context(), row, after);
            owner.execute(
                () -> {
                  feed.apply(slot, end);
                  if (manual != null) {
                    manual.done(row);
                  }
                });
          }
        };
    if (manual == null) {
      groups.run(run, job, on, done);
      return;
    }
    on.workers().execute(() -> runManual(manual, run, r, job, on, done));
  }

  /**
   * Any thread: the ended run's {@code row} (none: {@code null}) is written, with the hand-offs to
   * the jobs that run after it when no retry follows; returns what follows it.
   */
  FiringRules.AfterRun recorded(JobDefinition job, ExecutionRecord row) {
    if (row == null) {
      return FiringRules.AfterRun.FINAL;
    }
    FiringRules.AfterRun after = retries.plan(job, row);
    if (!after.retrying()) {
      List<JobDefinition> jobs = slots.read(() -> slots.all().stream().map(s -> s.job).toList());
      Chains.handOffs(jobs, row, parts.node(), parts.clock().instant()).forEach(history::handOff);
    }
    history.record(row, after.retrying());
    return after;
  }

  /** On the manual run's thread: its take under the lease, a last validity check, the run. */
  private void runManual(
      ManualRun manual,
      JobRun run,
      SlotEffect.Run r,
      JobDefinition job,
      SchedulerParts on,
      Consumer<ExecutionRecord> done) {
    boolean go;
    try {
      go = manual.take(r.lease());
    } catch (RuntimeException e) {
      parts.release(r.lease());
      manual.failed(e);
      done.accept(null);
      return;
    }
    if (!go) {
      parts.release(r.lease());
      done.accept(null);
    } else if (!LeaseTiming.answeredInTime(
        r.sentNanos(), r.lease().ttl(), parts.ticker().nanoTime())) {
      done.accept(
          run.notRun(
              Outcome.LEASE_LOST,
              "the lease's validity passed before the requested run could start"));
    } else {
      groups.run(run, job, on, done);
    }
  }

  /**
   * Nothing in flight for the job any more: the next queued firing still worth claiming (firings
   * that waited behind this node's own run longer than the skew allowance, or past their grace, are
   * given up by {@link JobSlot#nextQueued}), then the reports.
   */
  private void next(JobSlot slot, SlotEffect.Next n) {
    Instant queued = null;
    if (!slots.accepting(slot)) {
      slot.clearQueued();
    } else {
      queued = slot.nextQueued(parts.clock().instant(), n.ran(), rules).orElse(null);
    }
    feed.apply(
        slot,
        new SlotMachine.Idle(queued, slot.hasUnrun(), n.afterReports(), slots.accepting(slot)));
    slots.changed();
  }

  /** Timer event: the pause after undecided reports ended. */
  private void settleDue(JobSlot slot) {
    if (!slot.busy()) {
      feed.apply(slot, new SlotMachine.SettleDue(slot.hasUnrun(), slots.accepting(slot)));
    }
  }

  /** Timer event: a lease poll is due; the same firing is claimed again. */
  private void leasePoll(JobSlot slot, long step, SlotEffect.PollLease p) {
    if (slot.inStep(step)) {
      feed.apply(slot, new SlotMachine.LeasePoll(p.firing(), p.attempt(), slots.accepting(slot)));
    }
  }

  /** Timer event: the backoff ended; the latest due firing (coalescing) is claimed in its grace. */
  private void backoffEnded(JobSlot slot, long step, SlotEffect.Backoff b) {
    if (!slot.inStep(step)) {
      return; // a newer firing took over (it called the backoff off), or a stop did
    }
    if (!slots.accepting(slot)) {
      feed.apply(slot, new SlotMachine.BackoffEnded(b.firing(), b.attempt(), false, false));
      return;
    }
    Instant now = parts.clock().instant();
    JobDefinition job = slot.job;
    Instant latest = rules.coalesce(job.schedule(), b.firing(), now).orElse(b.firing());
    boolean missed = FiringRules.isMissed(job.policy().misfireGrace(), latest, now);
    if (missed) {
      log.warn("firing not run job={} firing={}: store unreachable", job.name(), latest);
    }
    feed.apply(slot, new SlotMachine.BackoffEnded(latest, b.attempt(), true, missed));
  }

  /** Runs blocking {@code work} on a worker, then feeds {@code then} to the owner. */
  private void onWorker(Runnable work, JobSlot slot, SlotMachine.Event then) {
    parts
        .workers()
        .execute(
            () -> {
              try {
                work.run();
              } finally {
                owner.execute(() -> feed.apply(slot, then));
              }
            });
  }
}
