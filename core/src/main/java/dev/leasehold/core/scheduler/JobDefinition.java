package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.schedule.Schedule;
import java.util.Objects;

/** A job the scheduler fires: its name (also its lease name), when, how and what it runs. */
public record JobDefinition(String name, Schedule schedule, JobPolicy policy, JobRunner runner) {
  public JobDefinition {
    LeaseNames.require(name);
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(runner, "runner");
  }
}
