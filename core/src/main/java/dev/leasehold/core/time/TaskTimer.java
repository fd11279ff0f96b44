package dev.leasehold.core.time;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs short tasks after a delay: the one timer behind every job's firings and every watchdog.
 * Tasks must not block; the scheduler hands blocking work (store calls, job bodies) to workers.
 * Tests inject a virtual timer that runs tasks as virtual time advances.
 */
public interface TaskTimer extends AutoCloseable {

  Cancellable schedule(Runnable task, Duration delay);

  @Override
  void close();

  /** A timer on one daemon thread. */
  static TaskTimer system(String threadName) {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return new TaskTimer() {
      @Override
      public Cancellable schedule(Runnable task, Duration delay) {
        long nanos = Math.max(0, delay.toNanos());
        var future = executor.schedule(task, nanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
      }

      @Override
      public void close() {
        executor.shutdownNow();
      }
    };
  }
}
