package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.StopReason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * A scheduler's graceful stop, in order: claim nothing more (one event of the owner: batched
 * claims, backoffs and lease polls are called off), take no more trigger requests, wait up to the
 * grace on the scheduler's ticker for the claims and runs in flight (scheduled and manual alike),
 * ask the stragglers to stop and wait for them to release their leases, write the history rows
 * still waiting, let the notification passes under way finish, and end the threads the scheduler
 * made.
 */
final class Shutdown {

  /** How long a stop waits at most for notifications being sent (after the runs ended). */
  static final Duration NOTICE_GRACE = Duration.ofSeconds(10);

  private final SchedulerParts parts;
  private final Slots slots;
  private final Runnable stopClaims;
  private final TriggerRequests requests;
  private final History history;
  private final NoticeDesk desk;
  private final boolean ownsTimer;
  private final ExecutorService ownedWorkers;

  Shutdown(
      SchedulerParts parts,
      Slots slots,
      Runnable stopClaims,
      TriggerRequests requests,
      History history,
      NoticeDesk desk,
      boolean ownsTimer,
      ExecutorService ownedWorkers) {
    this.parts = parts;
    this.slots = slots;
    this.stopClaims = stopClaims;
    this.requests = requests;
    this.history = history;
    this.desk = desk;
    this.ownsTimer = ownsTimer;
    this.ownedWorkers = ownedWorkers;
  }

  /** The workers a scheduler makes when it is given none: daemon threads, made as needed. */
  static ExecutorService workerPool() {
    ThreadFactory numbered = Executors.defaultThreadFactory();
    return Executors.newCachedThreadPool(
        r -> {
          Thread t = numbered.newThread(r);
          String name = t.getName();
          t.setName("leasehold-worker-" + name.substring(name.lastIndexOf('-') + 1));
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * Returns false when the scheduler was stopped already. {@code stopClaims} (given at
   * construction) is an event: it calls off batched claims, backoffs and lease polls.
   */
  boolean run(Duration grace) {
    SlotOwner owner = slots.owner();
    boolean first =
        owner.call(
            () -> {
              if (!slots.stop()) {
                return false;
              }
              stopClaims.run();
              return true;
            });
    if (!first) {
      return false;
    }
    if (requests != null) {
      requests.stop();
    }
    slots.awaitIdle(grace);
    List<JobRun> stragglers =
        owner.call(() -> slots.withRetired().stream().flatMap(s -> s.runs().stream()).toList());
    for (JobRun run : stragglers) {
      run.stop(StopReason.SHUTDOWN, "shutdown grace ran out");
    }
    slots.awaitIdle(Duration.ofSeconds(30));
    history.flushAtStop();
    desk.stop(); // the runs that ended in the grace started their passes
    desk.awaitIdle(grace.isZero() ? Duration.ZERO : NOTICE_GRACE);
    if (ownsTimer) {
      parts.timer().close();
    }
    if (ownedWorkers != null) {
      ownedWorkers.shutdown();
    }
    return true;
  }
}
