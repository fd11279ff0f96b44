package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NoticeNames;
import dev.leasehold.core.lease.hold.LeaseHold;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each job's notifications ({@link Notices}) to exactly one replica, and on to another when
 * that one dies before it could say it sent them.
 *
 * <p>What is sent is read from the shared history, not from memory: the last row of each firing (a
 * row no retry follows, by {@link FiringRules#afterRun}, computed from the row alone as every
 * replica does) whose job's notifier wants its event. Which of those are done is kept in the store
 * as the watermark of the job's <em>mark</em> record ({@link NoticeNames#mark}): every firing up to
 * it was sent (or given up). Sending is guarded by the job's <em>desk</em> lease ({@link
 * NoticeNames#desk}), taken with {@link LeaseStore#acquire} (fenced, renewed every {@code
 * renew-every} while sending, ending by the job's {@code ttl} when its holder dies). A pass,
 * holding the desk:
 *
 * <ol>
 *   <li>reads the mark and the job's newest rows, and sends the pending last rows oldest firing
 *       first;
 *   <li>after each delivery claims the mark at that row's firing (and releases that claim at once):
 *       the store moves the watermark, so no later pass sends it again;
 *   <li>releases the desk.
 * </ol>
 *
 * <p>The replica that writes a last row starts a pass at once; every replica also looks every
 * {@link #POLL} for last rows that are older than {@link #POLL} and past the mark (a sender that
 * died, a row written by a replica that died before its pass) and starts a pass when it finds one.
 * Passes of one job exclude each other through the desk lease, and each reads the mark under it, so
 * a row is sent again only when its sender died (or lost the desk, stalled past its {@code ttl})
 * after delivering and before its mark claim: at least once, with the event's {@code id} the same
 * in both deliveries. A sender that died before delivering is replaced: no loss.
 *
 * <p>What is not sent: rows that finished more than {@link NoticeRows#WINDOW} ago (a cluster that
 * starts does not replay old history), rows no longer among the job's newest {@link #ROWS}, and a
 * row that reaches the store only after a later firing of its job was marked (its writer could not
 * reach the store for a while). The two records per job are forgotten with the job's own ({@code
 * RemovedLeases}).
 *
 * <p>Store calls and deliveries run on the workers, never in the {@link SlotOwner}: a notifier that
 * hangs holds only its own pass.
 */
final class NoticeDesk {
  private static final Logger log = LoggerFactory.getLogger(NoticeDesk.class);

  /** How often every replica looks for rows nobody sent; also how old such a row must be. */
  static final Duration POLL = Duration.ofSeconds(5);

  /** Rows of a job read per pass: its pending last rows are among its newest. */
  static final int ROWS = 50;

  /** Rows of a job read by the look without the desk (each poll): the newest few. */
  static final int LOOK_ROWS = 10;

  /** The mark's claim is released at once; this bounds it when its claimant dies first. */
  static final Duration MARK_TTL = Duration.ofMillis(100);

  private final SchedulerParts parts;
  private final Slots slots;
  private final SlotOwner owner;
  private final NoticeRows rows;
  private final Notices notices;

  // the owner's: the jobs with a pass under way, those asked for another, and the poll
  private final Set<String> busy = new HashSet<>();
  private final Set<String> again = new HashSet<>();
  private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
  private boolean stopped;
  private Cancellable pollTask;

  NoticeDesk(
      SchedulerParts parts,
      Slots slots,
      ExecutionLog executionLog,
      FiringRules rules,
      Notices notices) {
    this.parts = parts;
    this.slots = slots;
    this.owner = slots.owner();
    this.rows = new NoticeRows(executionLog, rules, parts.clock());
    this.notices = notices;
  }

  /** Starts looking for unsent rows every {@link #POLL}. */
  void start() {
    if (notices == Notices.NONE) {
      return;
    }
    owner.run(this::schedulePoll);
  }

  /** Stops looking; passes under way finish their delivery (see {@link #awaitIdle}). */
  void stop() {
    owner.run(
        () -> {
          stopped = true;
          if (pollTask != null) {
            pollTask.cancel();
          }
        });
  }

  /** Waits up to {@code grace} for the passes under way. */
  void awaitIdle(Duration grace) {
    CompletableFuture<Void> idle =
        owner.call(
            () -> {
              CompletableFuture<Void> f = new CompletableFuture<>();
              idleWaiters.add(f);
              changed();
              return f;
            });
    try {
      idle.get(Math.max(1, grace.toMillis()), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn("stopping with notifications of {} unsent", owner.call(() -> List.copyOf(busy)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // never completed exceptionally
    }
  }

  /** Any thread: this replica wrote {@code row}; a pass starts at once when it is a last row. */
  void written(ExecutionRecord row, boolean retrying) {
    if (retrying || !notices.notifies(row.job()) || !NoticeRows.notifiable(row.outcome())) {
      return;
    }
    owner.execute(
        () -> {
          JobSlot slot = slots.find(row.job());
          if (slot != null && !stopped) {
            pass(slot.job, Duration.ZERO);
          }
        });
  }

  /** Event. */
  private void schedulePoll() {
    if (stopped) {
      return;
    }
    try {
      pollTask = owner.later(POLL, this::poll);
    } catch (RuntimeException e) {
      // the timer is closed: stopping
    }
  }

  /** Timer event. */
  private void poll() {
    try {
      for (JobSlot slot : slots.all()) {
        if (notices.notifies(slot.job.name())) {
          pass(slot.job, POLL);
        }
      }
    } finally {
      schedulePoll();
    }
  }

  /** Event: starts a pass for {@code job} on a worker, or asks the one under way for another. */
  private void pass(JobDefinition job, Duration minAge) {
    String name = job.name();
    if (!busy.add(name)) {
      if (minAge.isZero()) {
        again.add(name);
      }
      return;
    }
    try {
      parts.workers().execute(() -> run(job, minAge));
    } catch (RuntimeException e) {
      busy.remove(name);
      changed();
    }
  }

  /** Worker: one pass, then back to the owner, which starts another if one was asked for. */
  private void run(JobDefinition job, Duration minAge) {
    try {
      work(job, minAge);
    } catch (RuntimeException e) {
      log.debug("notification pass of job={} failed: {}", job.name(), e.toString());
    } finally {
      owner.execute(() -> passed(job));
    }
  }

  /** Event: a pass of {@code job} ended. */
  private void passed(JobDefinition job) {
    String name = job.name();
    if (!stopped && again.remove(name)) {
      try {
        parts.workers().execute(() -> run(job, Duration.ZERO));
        return;
      } catch (RuntimeException e) {
        // the workers are shut down
      }
    }
    again.remove(name);
    busy.remove(name);
    changed();
  }

  /** Event: completes the waiters once no pass is under way. */
  private void changed() {
    if (busy.isEmpty() && !idleWaiters.isEmpty()) {
      idleWaiters.forEach(w -> w.complete(null));
      idleWaiters.clear();
    }
  }

  /** One pass: a cheap look without the desk, then the desk and the deliveries. */
  private void work(JobDefinition job, Duration minAge) {
    LeaseStore store = parts.store();
    String name = job.name();
    if (rows.pending(job, mark(store, name), minAge, LOOK_ROWS).isEmpty()) {
      return;
    }
    // the desk is held as a run's lease is: renewed, and lost on a refusal or at its deadline
    Optional<LeaseHold> desk =
        parts
            .holds()
            .acquire(
                NoticeNames.desk(name),
                parts.node(),
                job.policy().ttl(),
                job.policy().renewEvery(),
                LeaseHold.Listener.NONE)
            .holdIfHeld();
    if (desk.isEmpty()) {
      log.debug("notifications of job={}: another replica is sending", name);
      return;
    }
    LeaseHold holding = desk.get();
    try {
      // read again under the desk: a pass that ended meanwhile moved the mark
      for (ExecutionRecord row : rows.pending(job, mark(store, name), Duration.ZERO, ROWS)) {
        if (holding.lost()) {
          log.warn(
              "notifications of job={}: the desk lease was lost; another replica goes on", name);
          return;
        }
        Optional<String> event = notices.event(row);
        if (event.isPresent()) {
          if (!row.node().equals(parts.node())) {
            log.info(
                "notification of job={} firing={} taken over from node={}",
                name,
                row.fireTime(),
                row.node());
          }
          notices.deliver(event.get(), row);
        }
        try {
          markSent(store, name, row.fireTime());
        } catch (RuntimeException e) {
          log.warn(
              "notification of job={} firing={} sent but not marked: {}; it may be sent again",
              name,
              row.fireTime(),
              e.toString());
          throw e;
        }
      }
    } finally {
      holding.release(); // nothing after a loss
    }
  }

  private static Instant mark(LeaseStore store, String job) {
    return store.inspect(NoticeNames.mark(job)).map(LeaseState::lastFire).orElse(null);
  }

  /** Moves the mark to {@code firing}: that firing and every earlier one are done. */
  private void markSent(LeaseStore store, String job, Instant firing) {
    ClaimResult answer = store.tryClaim(NoticeNames.mark(job), firing, parts.node(), MARK_TTL);
    if (answer.kind() == ClaimResult.Kind.WON) {
      parts.release(answer.lease());
    } else if (answer.kind() == ClaimResult.Kind.HELD) {
      log.warn(
          "notification of job={} firing={} sent but not marked: the mark was held; it may be"
              + " sent again",
          job,
          firing);
    }
    // ALREADY_RUN: a pass that lost the desk while sending marked it (or a later firing) first
  }
}
