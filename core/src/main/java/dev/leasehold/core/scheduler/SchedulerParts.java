package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.time.StoreClock;
import dev.leasehold.core.time.TaskTimer;
import dev.leasehold.core.time.Ticker;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collaborators one scheduler hands to its executions; {@code clock} is the store's clock as
 * this node estimates it (firings come due on it, {@link StoreTime}); {@code holds} holds every
 * lease the scheduler takes (renewals on the scheduler's timer and workers).
 */
record SchedulerParts(
    String node,
    LeaseStore store,
    StoreClock clock,
    Ticker ticker,
    TaskTimer timer,
    Executor workers,
    LeaseHolds holds) {

  SchedulerParts(
      String node,
      LeaseStore store,
      StoreClock clock,
      Ticker ticker,
      TaskTimer timer,
      Executor workers) {
    this(node, store, clock, ticker, timer, workers, new LeaseHolds(store, timer, ticker, workers));
  }

  private static final Logger log = LoggerFactory.getLogger(SchedulerParts.class);

  /** Frees {@code lease}; a refusal or a store error only logs, the lease then ends by its TTL. */
  void release(Lease lease) {
    try {
      if (!store.release(lease)) {
        log.warn(
            "release refused job={} fence={}: the lease had expired", lease.name(), lease.fence());
      }
    } catch (RuntimeException e) {
      log.warn(
          "release failed job={} fence={}: {}; the lease ends by its TTL",
          lease.name(),
          lease.fence(),
          e.toString());
    }
  }

  /** The same parts with {@code blocking} as the workers; leases are still renewed as before. */
  SchedulerParts on(Executor blocking) {
    return new SchedulerParts(node, store, clock, ticker, timer, blocking, holds);
  }
}
