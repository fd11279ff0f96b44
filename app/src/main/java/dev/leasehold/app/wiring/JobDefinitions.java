package dev.leasehold.app.wiring;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.runner.JobRunners;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.JobPolicy;
import java.util.List;
import java.util.function.UnaryOperator;

/** Turns the configured jobs into the scheduler's job definitions. */
public final class JobDefinitions {
  private JobDefinitions() {}

  /**
   * @param decorate wraps each runner (metrics); identity when not needed
   */
  public static List<JobDefinition> from(
      DaemonConfig config, JobRunners runners, UnaryOperator<JobRunner> decorate) {
    return config.jobs().stream().map(job -> definition(job, runners, decorate)).toList();
  }

  /** The policy the scheduler gives {@code job}: its lease, timeout, grace and retry. */
  public static JobPolicy policy(JobConfig job) {
    return JobPolicy.of(job.ttl(), job.renewEvery(), job.timeout(), job.misfireGrace())
        .withRetry(job.retry())
        .withOverlap(job.overlap());
  }

  private static JobDefinition definition(
      JobConfig job, JobRunners runners, UnaryOperator<JobRunner> decorate) {
    JobPolicy policy = policy(job);
    return new JobDefinition(
        job.name(),
        job.schedule(),
        policy,
        decorate.apply(runners.forAction(job.action())),
        job.group());
  }
}
