package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.time.TaskTimer;
import dev.leasehold.core.time.Ticker;
import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * The collaborators one scheduler hands to its executions; {@code holds} holds every lease the
 * scheduler takes (renewals on the scheduler's timer and workers).
 */
record SchedulerParts(
    String node,
    LeaseStore store,
    Clock clock,
    Ticker ticker,
    TaskTimer timer,
    Executor workers,
    LeaseHolds holds) {

  SchedulerParts(
      String node,
      LeaseStore store,
      Clock clock,
      Ticker ticker,
      TaskTimer timer,
      Executor workers) {
    this(node, store, clock, ticker, timer, workers, new LeaseHolds(store, timer, ticker, workers));
  }

  /** The same parts with {@code blocking} as the workers; leases are still renewed as before. */
  SchedulerParts on(Executor blocking) {
    return new SchedulerParts(node, store, clock, ticker, timer, blocking, holds);
  }
}
