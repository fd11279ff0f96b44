package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import java.util.Optional;

/**
 * The jobs' notifiers, as the scheduler's {@link NoticeDesk} uses them: which jobs have one, which
 * event a firing's last history row makes, and the delivery itself. The desk decides when and on
 * which replica a delivery happens; an implementation only formats and sends.
 */
public interface Notices {
  /** Whether {@code job} has a notifier (only those are watched). Any thread. */
  boolean notifies(String job);

  /**
   * The event {@code row}, the last row of its firing, makes for its job's notifier ({@code
   * failed}, {@code missed}, {@code recovered}, {@code succeeded}), or empty when the notifier does
   * not want it. May read the history. Called on a worker.
   */
  Optional<String> event(ExecutionRecord row);

  /**
   * Sends {@code event} about {@code row}, trying again a few times; returns once it was sent or
   * given up (either way logged). Called on a worker, while this replica holds the job's notice
   * lease; it may block for as long as its attempts take.
   */
  void deliver(String event, ExecutionRecord row);

  /** No notifier anywhere. */
  Notices NONE =
      new Notices() {
        @Override
        public boolean notifies(String job) {
          return false;
        }

        @Override
        public Optional<String> event(ExecutionRecord row) {
          return Optional.empty();
        }

        @Override
        public void deliver(String event, ExecutionRecord row) {}
      };
}
