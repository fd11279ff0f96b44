package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import java.time.Instant;

/** Hooks for metrics and health. Called on scheduler threads: return quickly, never throw. */
public interface SchedulerListener {
  /** An execution ended (also skipped and missed firings, after their history row). */
  default void executionFinished(ExecutionRecord record) {}

  /**
   * An execution ended; {@code retrying} when a retry of the same firing follows ({@link
   * RetryPolicy}), so the row is not the firing's last. By default calls {@link
   * #executionFinished(ExecutionRecord)}; the scheduler calls this one.
   */
  default void executionFinished(ExecutionRecord record, boolean retrying) {
    executionFinished(record);
  }

  /**
   * No replica ran this firing within its misfire grace, and this node reported it (once,
   * cluster-wide: the report holds the firing's claim). Called after {@link #executionFinished}.
   */
  default void firingMissed(String job, Instant firing) {}

  /** Another replica holds the lease or already ran this firing: the normal losing answer. */
  default void claimRefused(String job, Instant firing) {}

  /** The store could not be asked; nothing ran (G8). */
  default void storeUnavailable(String job, RuntimeException error) {}

  /** The store answered (any answer, including a refusal). */
  default void storeAnswered() {}

  SchedulerListener NONE = new SchedulerListener() {};
}
