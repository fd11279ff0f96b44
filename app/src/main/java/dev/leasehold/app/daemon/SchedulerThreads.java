package dev.leasehold.app.daemon;

import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.time.TaskTimer;
import java.util.concurrent.ExecutorService;

/**
 * A daemon's timer and workers: the scheduler's ({@link Scheduler.Builder#timer}, {@link
 * Scheduler.Builder#workers}), shared by the history pruner and the node publisher, which run as
 * tasks on the same timer and do their store calls on the same workers. The daemon closes them
 * after the scheduler stopped (a scheduler given them does not); their threads are made only when
 * first used.
 */
record SchedulerThreads(TaskTimer timer, ExecutorService workers) implements AutoCloseable {

  static SchedulerThreads create() {
    return new SchedulerThreads(TaskTimer.system("leasehold-timer"), Scheduler.newWorkerPool());
  }

  /**
   * Ends the timer and lets the workers finish what they hold (as a scheduler does with its own).
   */
  @Override
  public void close() {
    timer.close();
    workers.shutdown();
  }
}
