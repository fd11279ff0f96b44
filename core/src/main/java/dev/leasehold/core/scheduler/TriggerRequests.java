package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the requests of {@code leasehold trigger} ({@link TriggerRequest}) on a daemon: reads the
 * request queue's newest rows every {@code every}, and for each open request of a job this node
 * runs, tries to take it under the job's lease.
 *
 * <p>Taking is {@code acquire} of the job's lease (so it never overlaps a scheduled run of the job,
 * and leaves the watermark alone), then, under that lease, a second read of the queue: a request
 * with a taken row is left alone (another replica took it); otherwise this node writes the taken
 * row, checks that the lease's validity (counted from the acquisition's send) has not passed, and
 * runs the job as a manual run whose firing is the request instant. The lease makes the read and
 * the write one step cluster-wide: another replica can take the lease only after this node's
 * validity ended, by which time the taken row was written. A replica that dies after the
 * acquisition and before the taken row leaves the request open: another replica takes it once the
 * lease's TTL has passed, while the request is open.
 *
 * <p>The take is a {@link ManualRun} through the job's slot, like every manual run: the slot
 * refuses it while the job has a claim or run in flight here (the next poll offers it again), so
 * this node takes at most one request per job at a time, and the run goes through the job's group,
 * the history and the notifications. The poll reads on a worker; what this node handled is the
 * {@link SlotOwner}'s, changed only by its events.
 *
 * <p>A scheduler whose execution log signals its request rows ({@link RequestMarker#signaling}, a
 * daemon's) reads the queue only when it must: each poll reads the {@link RequestMarker} (one
 * primary-key read) and the queue only when the marker moved since the last read, while a request
 * this node offered to a slot is still open (a busy slot, a paused child: offered again at each
 * poll, as before), and at least every {@link #RESCAN} (a request whose writer could not bump the
 * marker). Idle, a replica costs one cheap read per poll instead of a read of the queue's rows.
 * Where the store signals new requests ({@link RequestSignals}, passed with the log), a signal
 * reads the queue at once and the marker is read only every {@link #LISTENING_POLL}.
 */
final class TriggerRequests {
  private static final Logger log = LoggerFactory.getLogger(TriggerRequests.class);

  /** Rows of the queue read per poll: at most half as many requests can be open at once. */
  static final int ROWS = 200;

  /** Request ids this node remembers as handled. */
  static final int REMEMBERED = 1000;

  /** The longest time between two reads of the queue when a marker gates them. */
  static final Duration RESCAN = Duration.ofSeconds(60);

  /** The marker's pace while the store's signals are listened to (a safety net only). */
  static final Duration LISTENING_POLL = Duration.ofSeconds(30);

  private final Slots slots;
  private final SchedulerParts parts;
  private final ExecutionLog executionLog;
  private final SlotMachine.Feed feed;
  private final Duration every;
  private final SlotOwner owner;
  private final LeaseStore marker;
  private final RequestSignals signals;

  // the owner's
  private final Set<String> handled = new LinkedHashSet<>();
  private boolean stopped;
  private Cancellable next;
  private long seen = -1; // the marker when the queue was last read; -1 before the first read
  private boolean offering; // the last read offered a request to a slot: read the queue again
  private long readAt; // the ticker when the queue was last read
  private boolean polling; // a poll is on a worker
  private boolean woken; // a signal came: read the queue now, or right after the poll under way
  private AutoCloseable listening;

  TriggerRequests(
      Slots slots,
      SchedulerParts parts,
      ExecutionLog executionLog,
      SlotMachine.Feed feed,
      Duration every) {
    this.slots = slots;
    this.parts = parts;
    this.executionLog = executionLog;
    this.feed = feed;
    this.every = every;
    this.owner = slots.owner();
    Optional<RequestMarker.Signaling> signaling = RequestMarker.of(executionLog);
    this.marker = signaling.map(m -> m.store).orElse(null);
    this.signals = signaling.flatMap(m -> m.signals).orElse(null);
  }

  /**
   * Starts polling, unless this scheduler takes no requests ({@code every} null), and listening to
   * the store's signals when it has them.
   */
  void start() {
    if (every == null) {
      return;
    }
    owner.run(() -> schedule(Duration.ZERO));
    AutoCloseable handle =
        signals == null ? null : RequestMarker.listen(signals, () -> owner.execute(this::wake));
    if (handle != null && owner.call(() -> keptTooLate(handle))) {
      RequestMarker.close(handle);
    }
  }

  /** Event: keeps the listener for the stop; whether the stop came first (then it is closed). */
  private boolean keptTooLate(AutoCloseable handle) {
    listening = handle;
    return stopped;
  }

  /** No new poll or take; runs in flight are the slots' (a stop waits for them and stops them). */
  void stop() {
    AutoCloseable handle =
        owner.call(
            () -> {
              stopped = true;
              if (next != null) {
                next.cancel();
              }
              return listening;
            });
    if (handle != null) {
      RequestMarker.close(handle);
    }
  }

  /** Event: a signal of the store; the queue is read at once (after the poll under way). */
  private void wake() {
    woken = true;
    if (!polling && !stopped) {
      if (next != null) {
        next.cancel();
      }
      schedule(Duration.ZERO);
    }
  }

  /** How long between two polls when no request waits: with signals, the marker is a safety net. */
  private Duration pace() {
    return offering || listening == null || every.compareTo(LISTENING_POLL) > 0
        ? every
        : LISTENING_POLL;
  }

  /** Event. */
  private void schedule(Duration delay) {
    if (stopped) {
      return;
    }
    try {
      next =
          owner.later(
              delay,
              () -> {
                if (!stopped && !polling) {
                  boolean read = marker == null || seen < 0 || offering || woken || rescanDue();
                  long known = seen;
                  woken = false;
                  polling = true;
                  parts.workers().execute(() -> poll(read, known));
                }
              });
    } catch (RuntimeException e) {
      stopped = true; // the timer is closed
    }
  }

  /** Event: whether the queue is read whatever the marker says (at least every RESCAN). */
  private boolean rescanDue() {
    return parts.ticker().nanoTime() - readAt >= RESCAN.toNanos();
  }

  /**
   * Worker: the marker (with one), then the queue when {@code mustRead} or the marker moved from
   * {@code known}; what was read is handed to the owner.
   */
  private void poll(boolean mustRead, long known) {
    long mark = -1;
    List<ExecutionRecord> rows = null;
    try {
      boolean read = mustRead;
      if (marker != null) {
        mark = RequestMarker.read(marker); // before the queue: a bump is after its row
        read |= mark != known;
      }
      if (read) {
        rows = executionLog.recent(TriggerRequest.QUEUE, ROWS);
      }
    } catch (RuntimeException e) {
      log.debug("reading the trigger requests failed: {}", e.toString());
      rows = null;
    }
    List<ExecutionRecord> read = rows;
    long at = mark;
    owner.execute(
        () -> {
          polling = false;
          try {
            if (read != null) {
              seen = Math.max(at, 0);
              readAt = parts.ticker().nanoTime();
              offering = offer(read);
            }
          } finally {
            schedule(woken ? Duration.ZERO : pace());
          }
        });
  }

  /**
   * Event: every open request of a job of this node goes to the job's slot, the oldest first (a
   * slot takes one at a time, so a backfill's firings run in their order); whether any went.
   */
  private boolean offer(List<ExecutionRecord> rows) {
    boolean offered = false;
    Instant now = parts.clock().instant();
    for (int i = rows.size() - 1; i >= 0; i--) {
      ExecutionRecord row = rows.get(i);
      Optional<TriggerRequest> request = TriggerRequest.of(row);
      if (request.isEmpty() || stopped) {
        continue;
      }
      TriggerRequest r = request.get();
      JobSlot slot = slots.find(r.job());
      if (slot == null || handled.contains(r.id())) {
        continue;
      }
      if (r.takenIn(rows).isPresent() || now.isAfter(r.until())) {
        handled(r.id());
        continue;
      }
      JobDefinition job = slot.job;
      ManualRun run =
          ManualRun.onWorkers(
              r,
              parts.workers(),
              lease -> take(r, job, lease, false),
              record -> record.withDetail(r.runDetail(record.detail())));
      run.result()
          .whenComplete(
              (ran, e) -> {
                if (e != null) {
                  log.warn(
                      "trigger request {} of job={} not taken here now: {}",
                      r.id(),
                      r.job(),
                      e.toString());
                }
              });
      feed.apply(slot, new SlotMachine.Trigger(run));
      offered = true;
    }
    return offered;
  }

  /**
   * Takes {@code request} in the calling thread ({@code backfill --here}): through the job's slot,
   * under its lease, with the same checks as a daemon's take; its record, or empty when it was not
   * taken (the lease held elsewhere, the job busy here, or the checks said no).
   */
  Optional<ExecutionRecord> takeHere(TriggerRequest request) {
    JobSlot slot = slots.read(() -> slots.get(request.job()));
    JobDefinition job = slots.read(() -> slot.job);
    ManualRun run =
        ManualRun.onCallingThread(
            request,
            lease -> take(request, job, lease, true),
            record -> record.withDetail(request.runDetail(record.detail())));
    owner.execute(() -> feed.apply(slot, new SlotMachine.Trigger(run)));
    return run.await();
  }

  /**
   * On the run's worker, under the job's lease: reads the queue again; unless the request was
   * taken, left the rows read or closed meanwhile, writes its taken row.
   */
  private boolean take(TriggerRequest request, JobDefinition job, Lease lease, boolean here) {
    List<ExecutionRecord> rows = executionLog.recent(TriggerRequest.QUEUE, ROWS);
    Optional<ExecutionRecord> taken = request.takenIn(rows);
    Instant now = parts.clock().instant();
    String gone =
        taken.isPresent()
            ? "taken by " + taken.get().node()
            : !request.requestedIn(rows)
                ? "no longer among the newest " + ROWS + " rows of the queue"
                : now.isAfter(request.until())
                    ? "no longer open (until " + request.until() + ")"
                    : null;
    String later = null;
    if (gone == null && request.kind() == TriggerKind.BACKFILL) {
      Backfills.Verdict verdict = Backfills.judge(request, job, rows, parts, executionLog);
      gone = verdict.gone();
      later = verdict.later();
    } else if (gone == null
        && request.kind() == TriggerKind.AFTER
        && parts.store().inspect(job.name()).map(LeaseState::paused).orElse(false)) {
      later = "the job is paused"; // a chain's child waits for the resume, while it is open
    }
    if (later != null) {
      log.debug("request {} of job={} waits: {}", request.id(), job.name(), later);
      return false;
    }
    if (gone != null || (!here && !slots.read(slots::accepting))) {
      if (gone != null) {
        owner.execute(() -> handled(request.id()));
        log.debug("trigger request {} of job={}: {}", request.id(), job.name(), gone);
      }
      return false;
    }
    executionLog.record(request.takenRow(parts.node(), lease.fence(), now));
    owner.execute(() -> handled(request.id()));
    log.info(
        "trigger request {} taken job={} fence={} requested by {}",
        request.id(),
        job.name(),
        lease.fence(),
        request.by());
    return true;
  }

  /** Event. */
  private void handled(String id) {
    handled.add(id);
    if (handled.size() > REMEMBERED) {
      Iterator<String> oldest = handled.iterator();
      oldest.next();
      oldest.remove();
    }
  }
}
