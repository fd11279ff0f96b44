package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.time.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
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
 * <p>Threads: the poll and each take run on the scheduler's workers; at most one take per job is in
 * flight on this node.
 */
final class TriggerRequests {
  private static final Logger log = LoggerFactory.getLogger(TriggerRequests.class);

  /** Rows of the queue read per poll: at most half as many requests can be open at once. */
  static final int ROWS = 200;

  /** Request ids this node remembers as handled. */
  static final int REMEMBERED = 1000;

  private final Slots slots;
  private final SchedulerParts parts;
  private final ExecutionLog executionLog;
  private final History history;
  private final Duration every;
  private final Object lock = new Object();
  private final Set<String> handled = new LinkedHashSet<>();
  private final Set<String> taking = new HashSet<>();
  private final Set<JobRun> running = new HashSet<>();
  private boolean stopped;
  private Cancellable next;

  TriggerRequests(
      Slots slots,
      SchedulerParts parts,
      ExecutionLog executionLog,
      History history,
      Duration every) {
    this.slots = slots;
    this.parts = parts;
    this.executionLog = executionLog;
    this.history = history;
    this.every = every;
  }

  void start() {
    schedule(Duration.ZERO);
  }

  /** No new poll or take; runs in flight go on ({@link #stopRunning}, {@link #awaitIdle}). */
  void stop() {
    synchronized (lock) {
      stopped = true;
      if (next != null) {
        next.cancel();
      }
      lock.notifyAll();
    }
  }

  /** Asks the requested runs still going to stop. */
  void stopRunning(StopReason reason, String why) {
    List<JobRun> runs;
    synchronized (lock) {
      runs = List.copyOf(running);
    }
    runs.forEach(r -> r.stop(reason, why));
  }

  /** Waits up to {@code limit} (on the ticker) until no take or run is in flight here. */
  void awaitIdle(Duration limit) {
    long end = parts.ticker().nanoTime() + limit.toNanos();
    synchronized (lock) {
      while (!taking.isEmpty()) {
        long left = end - parts.ticker().nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          lock.wait(Math.max(1, Math.min(left / 1_000_000, 100)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void schedule(Duration delay) {
    synchronized (lock) {
      if (stopped) {
        return;
      }
      try {
        next = parts.timer().schedule(() -> parts.workers().execute(this::poll), delay);
      } catch (RuntimeException e) {
        stopped = true; // the timer is closed
      }
    }
  }

  /** Worker: one read of the queue; every open request of a job of this node goes to a take. */
  void poll() {
    try {
      List<ExecutionRecord> rows;
      try {
        rows = executionLog.recent(TriggerRequest.QUEUE, ROWS);
      } catch (RuntimeException e) {
        log.debug("reading the trigger requests failed: {}", e.toString());
        return;
      }
      Instant now = parts.clock().instant();
      for (ExecutionRecord row : rows) {
        Optional<TriggerRequest> request = TriggerRequest.of(row);
        if (request.isEmpty()) {
          continue;
        }
        TriggerRequest r = request.get();
        JobDefinition job = job(r.job());
        if (job == null || isHandled(r.id())) {
          continue;
        }
        if (r.takenIn(rows).isPresent() || now.isAfter(r.until())) {
          handled(r.id());
          continue;
        }
        synchronized (lock) {
          if (stopped || !taking.add(r.job())) {
            continue; // one take per job at a time; the next poll sees it again
          }
        }
        parts.workers().execute(() -> take(r, job));
      }
    } finally {
      schedule(every);
    }
  }

  private JobDefinition job(String name) {
    JobSlot slot = slots.find(name);
    return slot == null ? null : slot.job;
  }

  private void take(TriggerRequest request, JobDefinition job) {
    try {
      takeOnce(request, job);
    } catch (RuntimeException e) {
      log.warn(
          "trigger request {} of job={} not taken here now: {}",
          request.id(),
          request.job(),
          e.toString());
    } finally {
      synchronized (lock) {
        taking.remove(request.job());
        lock.notifyAll();
      }
    }
  }

  private void takeOnce(TriggerRequest request, JobDefinition job) {
    long sent = parts.ticker().nanoTime();
    Optional<Lease> acquired = parts.store().acquire(job.name(), parts.node(), job.policy().ttl());
    if (acquired.isEmpty()) {
      return; // a run holds the job's lease: the next poll tries again
    }
    Lease lease = acquired.get();
    if (!LeaseWatchdog.answeredInTime(sent, lease.ttl(), parts.ticker().nanoTime())) {
      JobRun.release(parts.store(), lease);
      return;
    }
    JobRun run;
    try {
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
      if (gone != null || stopped()) {
        JobRun.release(parts.store(), lease);
        if (gone != null) {
          handled(request.id());
          log.debug("trigger request {} of job={}: {}", request.id(), job.name(), gone);
        }
        return;
      }
      executionLog.record(request.takenRow(parts.node(), lease.fence(), now));
      handled(request.id());
      run = new JobRun(job, lease, request.at(), 1, TriggerKind.MANUAL, sent, parts);
    } catch (RuntimeException e) {
      JobRun.release(parts.store(), lease);
      throw e;
    }
    log.info(
        "trigger request {} taken job={} fence={} requested by {}",
        request.id(),
        job.name(),
        lease.fence(),
        request.by());
    ExecutionRecord record;
    if (!LeaseWatchdog.answeredInTime(sent, lease.ttl(), parts.ticker().nanoTime())) {
      record =
          run.notRun(
              Outcome.LEASE_LOST,
              "the lease's validity passed before the requested run could start");
    } else {
      synchronized (lock) {
        running.add(run);
      }
      try {
        record = run.run();
      } finally {
        synchronized (lock) {
          running.remove(run);
        }
      }
    }
    history.record(record.withDetail(request.runDetail(record.detail())));
  }

  private boolean stopped() {
    synchronized (lock) {
      return stopped;
    }
  }

  private boolean isHandled(String id) {
    synchronized (lock) {
      return handled.contains(id);
    }
  }

  private void handled(String id) {
    synchronized (lock) {
      handled.add(id);
      if (handled.size() > REMEMBERED) {
        Iterator<String> oldest = handled.iterator();
        oldest.next();
        oldest.remove();
      }
    }
  }
}
