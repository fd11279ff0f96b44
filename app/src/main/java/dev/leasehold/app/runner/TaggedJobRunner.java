package dev.leasehold.app.runner;

import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import org.slf4j.MDC;

/**
 * Tags the job's thread with the MDC key {@code job} while it runs, so whatever the job logs (a
 * Java job, the HTTP runner) carries the job's name in the log line.
 */
public final class TaggedJobRunner implements JobRunner {
  private final JobRunner runner;

  private TaggedJobRunner(JobRunner runner) {
    this.runner = runner;
  }

  public static JobRunner tag(JobRunner runner) {
    return new TaggedJobRunner(runner);
  }

  @Override
  public JobResult run(JobContext context) throws Exception {
    MDC.put("job", context.job());
    try {
      return runner.run(context);
    } finally {
      MDC.remove("job");
    }
  }
}
