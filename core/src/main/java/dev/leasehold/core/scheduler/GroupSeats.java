package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.CountedLease;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.hold.LeaseTiming;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Concurrency groups: the jobs of a group run at most {@code max-concurrent} at once across the
 * cluster. The limit lives in the store, as a {@link CountedLease} per group ({@code
 * max-concurrent} plain leases named {@code _leasehold.group.<group>.<i>}): a run takes a slot
 * after its claim won (so only the one replica that owns the firing competes for a slot, and a lost
 * claim never holds a slot), keeps it renewed alongside its own lease, and releases it when the
 * body ends ({@link JobRun#run(Lease, long)}).
 *
 * <p>A run that finds every slot taken keeps its claim's lease renewed and tries again every {@link
 * #POLL} until the firing is past its misfire grace; then it records the firing as {@link
 * Outcome#GROUP_FULL} (or {@link Outcome#MISSED} when the store could not be asked at the last
 * try). Polling runs on timer and worker tasks, never blocking a thread while it waits.
 */
final class GroupSeats {
  private static final Logger log = LoggerFactory.getLogger(GroupSeats.class);

  /** How often a run waiting for its group tries the slots again. */
  static final Duration POLL = Duration.ofMillis(500);

  /** No groups. */
  static final GroupSeats NONE = new GroupSeats(Map.of());

  private final Map<String, Integer> limits;

  /**
   * @param limits each group's name and max-concurrent (at least 1)
   * @throws IllegalArgumentException for a bad name or limit
   */
  GroupSeats(Map<String, Integer> limits) {
    Map<String, Integer> copy = new TreeMap<>();
    limits.forEach(
        (name, max) -> {
          if (max == null || max < 1) {
            throw new IllegalArgumentException(
                "group '" + name + "': max-concurrent must be at least 1, got " + max);
          }
          String problem = LeaseNames.problem(CountedLease.slotName(name, max - 1));
          if (problem != null) {
            throw new IllegalArgumentException("group name '" + name + "': slot lease " + problem);
          }
          copy.put(name, max);
        });
    this.limits = Map.copyOf(copy);
  }

  /**
   * @throws IllegalArgumentException when a job names a group that is not defined
   */
  void check(Collection<JobDefinition> jobs) {
    for (JobDefinition job : jobs) {
      if (job.group() != null && !limits.containsKey(job.group())) {
        throw new IllegalArgumentException(
            "job '" + job.name() + "': group '" + job.group() + "' is not defined");
      }
    }
  }

  /**
   * Runs {@code run} (whose claim won {@code firing}) once it holds a slot of its group, on the
   * workers; {@code done} gets the record, on a worker. A job in no group runs at once.
   */
  void run(JobRun run, JobDefinition job, SchedulerParts parts, Consumer<ExecutionRecord> done) {
    if (job.group() == null) {
      if (job.runner() instanceof AsyncJobRunner body) {
        // the worker only starts the body (which may resolve a host name): none waits for its end
        parts.workers().execute(() -> run.start(body, done));
      } else {
        parts.workers().execute(() -> finish(run::run, done));
      }
      return;
    }
    run.holdLease();
    Instant deadline = run.context().firing().plus(FiringRules.grace(job.policy().misfireGrace()));
    parts.workers().execute(() -> attempt(run, job, parts, deadline, done));
  }

  /**
   * Runs {@code body} and hands its record to {@code done}; {@code null} when the body threw, so
   * that the slot still goes idle.
   */
  private static void finish(
      java.util.function.Supplier<ExecutionRecord> body, Consumer<ExecutionRecord> done) {
    ExecutionRecord row = null;
    try {
      row = body.get();
    } finally {
      done.accept(row);
    }
  }

  /** Worker: tries every slot once; runs, gives up, or tries again after {@link #POLL}. */
  private void attempt(
      JobRun run,
      JobDefinition job,
      SchedulerParts parts,
      Instant deadline,
      Consumer<ExecutionRecord> done) {
    String group = job.group();
    if (run.context().stopRequested()) {
      done.accept(run.notRun(Outcome.MISSED, "stopped while waiting for a slot of group " + group));
      return;
    }
    String error = null;
    int max = limits.get(group);
    long sent = parts.ticker().nanoTime();
    try {
      Optional<Lease> seat =
          CountedLease.tryTake(parts.store(), group, max, parts.node(), ttl(job));
      if (seat.isPresent()) {
        if (LeaseTiming.answeredInTime(sent, ttl(job), parts.ticker().nanoTime())) {
          finish(() -> run.run(seat.get(), sent), done);
          return;
        }
        parts.release(seat.get()); // came too late to count on
      }
    } catch (RuntimeException e) {
      error = e.toString();
    }
    Instant next = parts.clock().instant().plus(POLL);
    if (next.isAfter(deadline)) {
      String why =
          error == null
              ? "group " + group + " had no free slot (max-concurrent " + max + ") in its grace"
              : "the store was unreachable while taking a slot of group " + group + ": " + error;
      done.accept(run.notRun(error == null ? Outcome.GROUP_FULL : Outcome.MISSED, why));
      return;
    }
    log.debug(
        "job={} firing={}: group {} full, waiting", job.name(), run.context().firing(), group);
    parts
        .timer()
        .schedule(
            () -> parts.workers().execute(() -> attempt(run, job, parts, deadline, done)), POLL);
  }

  private static Duration ttl(JobDefinition job) {
    return job.policy().ttl();
  }
}
