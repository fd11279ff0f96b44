package dev.leasehold.core.job;

/**
 * Port: runs one job body (a process, an HTTP call, a Java {@link Job}) for one execution. It
 * blocks until the body has ended. When {@link JobContext#stopRequested()} becomes true the
 * runner's thread is interrupted and the runner must end the body promptly (a process tree is
 * terminated) before returning. A body that mostly waits on I/O can implement {@link
 * AsyncJobRunner} instead, so that no thread waits for it.
 */
@FunctionalInterface
public interface JobRunner {
  JobResult run(JobContext context) throws Exception;

  /** Adapts a Java {@link Job}: return is success, an exception is failure. */
  static JobRunner of(Job job) {
    return context -> {
      job.execute(context);
      return JobResult.succeeded();
    };
  }
}
