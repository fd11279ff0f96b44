package dev.leasehold.app.notify;

import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import java.util.concurrent.CompletableFuture;

/**
 * Tells the notifier when a run starts ({@code on: [started]}), for outside monitors that time a
 * run: the runner of a job is wrapped, and the replica that holds the job's lease and runs it sends
 * the event, so it is sent once per run cluster-wide without the store. The run never waits for the
 * sending.
 */
public final class StartNotices {
  private StartNotices() {}

  /** {@code runner}, announcing each start to {@code notifier}; an async runner stays one. */
  public static JobRunner wrap(JobRunner runner, Notifier notifier) {
    if (runner instanceof AsyncJobRunner async) {
      return new AsyncJobRunner() {
        @Override
        public CompletableFuture<JobResult> start(JobContext context) {
          notifier.started(context);
          return async.start(context);
        }
      };
    }
    return context -> {
      notifier.started(context);
      return runner.run(context);
    };
  }
}
