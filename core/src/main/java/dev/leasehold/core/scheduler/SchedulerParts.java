package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.time.TaskTimer;
import dev.leasehold.core.time.Ticker;
import java.time.Clock;
import java.util.concurrent.Executor;

/** The collaborators one scheduler hands to its executions. */
record SchedulerParts(
    String node, LeaseStore store, Clock clock, Ticker ticker, TaskTimer timer, Executor workers) {}
