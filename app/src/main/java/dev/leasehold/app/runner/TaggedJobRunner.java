package dev.leasehold.app.runner;

import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.store.Redaction;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

  /** Tags {@code runner}; an {@link AsyncJobRunner} stays one. */
  public static JobRunner tag(JobRunner runner) {
    if (runner instanceof AsyncJobRunner async) {
      return new Async(async);
    }
    return new TaggedJobRunner(runner);
  }

  /**
   * An asynchronous body: tagged while it starts (its later callbacks run on the client's threads,
   * which set the tag where they log), its result's detail scrubbed.
   */
  private static final class Async implements AsyncJobRunner {
    private final AsyncJobRunner runner;

    private Async(AsyncJobRunner runner) {
      this.runner = runner;
    }

    @Override
    public CompletableFuture<JobResult> start(JobContext context) {
      MDC.put("job", context.job());
      CompletableFuture<JobResult> body;
      try {
        body = runner.start(context);
      } catch (RuntimeException | LinkageError e) {
        body = CompletableFuture.completedFuture(JobResult.failed(e.toString()));
      } finally {
        MDC.remove("job");
      }
      CompletableFuture<JobResult> scrubbed =
          body.handle((r, e) -> e == null ? scrub(r) : JobResult.failed(failure(e).toString()));
      CompletableFuture<JobResult> started = body;
      scrubbed.whenComplete(
          (r, e) -> {
            if (scrubbed.isCancelled()) {
              started.cancel(true); // a stop reaches the body
            }
          });
      return scrubbed;
    }

    private static Throwable failure(Throwable e) {
      return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
  }

  private static JobResult scrub(JobResult result) {
    if (result == null || result.detail() == null) {
      return result;
    }
    // the detail leaves the process as a history row and a log field: scrubbed here, raw; the
    // output was scrubbed line by line as it was kept
    return new JobResult(
        result.outcome(), result.exitCode(), Redaction.scrub(result.detail()), result.output());
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
      return scrub(result);
    } finally {
      MDC.remove("job");
    }
  }
}
