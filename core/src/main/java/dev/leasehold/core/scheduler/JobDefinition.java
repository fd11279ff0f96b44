package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.schedule.Schedule;
import java.util.Objects;

/**
 * A job the scheduler fires: its name (also its lease name), when, how and what it runs, and the
 * concurrency group it belongs to ({@code null} for none; see {@link Scheduler.Builder#group}).
 */
public record JobDefinition(
    String name, Schedule schedule, JobPolicy policy, JobRunner runner, String group) {
  public JobDefinition {
    LeaseNames.require(name);
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(runner, "runner");
  }

  /** A job in no group. */
  public JobDefinition(String name, Schedule schedule, JobPolicy policy, JobRunner runner) {
    this(name, schedule, policy, runner, null);
  }
}
