package dev.leasehold.app.runner;

import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.store.Redaction;
import org.slf4j.MDC;

/**
 * Tags the job's thread with the MDC key {@code job} while it runs, so whatever the job logs (a
 * Java job, the HTTP runner) carries the job's name in the log line, and scrubs the result's detail
 * ({@link Redaction#scrub}) before it becomes a history row.
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
      JobResult result;
      try {
        result = runner.run(context);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception | LinkageError e) {
        // as the scheduler would record it, but scrubbed
        result = JobResult.failed(e.toString());
      }
      if (result == null || result.detail() == null) {
        return result;
      }
      // the detail leaves the process as a history row and a log field: scrubbed here, raw; the
      // output was scrubbed line by line as it was kept
      return new JobResult(
          result.outcome(), result.exitCode(), Redaction.scrub(result.detail()), result.output());
    } finally {
      MDC.remove("job");
    }
  }
}
