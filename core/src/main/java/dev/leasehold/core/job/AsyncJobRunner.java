package dev.leasehold.core.job;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A {@link JobRunner} whose body waits on I/O without holding a thread: {@link #start} sends the
 * work off and returns at once, and the returned future completes when the body has ended. The
 * scheduler then holds no thread while the body runs, so firings that come due together do not need
 * a thread each.
 *
 * <p>When {@link JobContext#stopRequested()} becomes true the scheduler cancels the future ({@code
 * cancel(true)}); the runner must then end the body promptly (an HTTP exchange is aborted). The
 * outcome of a stopped run is the stop's, whatever the future held. {@link #run} is the blocking
 * form for callers that want one: it waits on the calling thread and cancels on interrupt.
 */
public interface AsyncJobRunner extends JobRunner {
  /**
   * Starts the body; must not block. The future completes with the result, or exceptionally (a
   * failure, recorded as such).
   */
  CompletableFuture<JobResult> start(JobContext context);

  @Override
  default JobResult run(JobContext context) throws Exception {
    CompletableFuture<JobResult> body = start(context);
    try {
      return body.get();
    } catch (InterruptedException e) {
      body.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception x) {
        throw x;
      }
      throw e;
    } catch (CancellationException e) {
      throw new InterruptedException("cancelled");
    }
  }
}
