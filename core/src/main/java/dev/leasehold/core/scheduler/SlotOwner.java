package dev.leasehold.core.scheduler;

import dev.leasehold.core.time.Cancellable;
import dev.leasehold.core.time.TaskTimer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of a scheduler's state: every {@link JobSlot}, the {@link Slots} life state and the
 * pending {@link ClaimBatch}. Nothing else changes them. Timers, workers (store answers, ended
 * runs) and the caller of {@link Scheduler#start}/{@link Scheduler#stop} hand the owner
 * <em>events</em> ({@link #execute}, {@link #later}, {@link #call}), and the owner runs them one at
 * a time, in the order they were handed over.
 *
 * <p>The owner has no thread of its own (the algorithm of gRPC's {@code SynchronizationContext}):
 * the thread that hands an event to an idle owner runs it, and any event handed over meanwhile,
 * until the queue is empty; an event handed over while another thread runs the owner is queued for
 * that thread. So at most one thread is inside the owner at any moment, an event handed over from
 * inside an event runs after it (never nested), and in virtual time a timer's event runs at that
 * timer's tick. Events must not block: store calls and job bodies go to the workers, and their
 * results come back as new events.
 *
 * <p>State methods call {@link #check}: touching a slot from outside the owner throws at once
 * instead of racing.
 */
final class SlotOwner {
  private static final Logger log = LoggerFactory.getLogger(SlotOwner.class);

  private final Queue<Runnable> events = new ConcurrentLinkedQueue<>();
  private final AtomicReference<Thread> runner = new AtomicReference<>();
  private final TaskTimer timer;

  SlotOwner(TaskTimer timer) {
    this.timer = timer;
  }

  /** Hands over an event: run now on this thread if the owner is idle, else queued. */
  void execute(Runnable event) {
    events.add(event);
    drain();
  }

  /** Hands over an event after {@code delay} on the timer. */
  Cancellable later(Duration delay, Runnable event) {
    return timer.schedule(() -> execute(event), delay);
  }

  /**
   * Runs {@code query} as an event and waits for its result; its exceptions are rethrown here.
   *
   * @throws IllegalStateException when called from inside the owner (it would wait on itself)
   */
  <T> T call(Supplier<T> query) {
    if (owns()) {
      throw new IllegalStateException("an event cannot wait for another event");
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    execute(
        () -> {
          try {
            answer.complete(query.get());
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        });
    try {
      return answer.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  /** Runs {@code event} and waits for it to end, as {@link #call} does. */
  void run(Runnable event) {
    call(
        () -> {
          event.run();
          return null;
        });
  }

  /** Whether the calling thread is running the owner's events. */
  boolean owns() {
    return runner.get() == Thread.currentThread();
  }

  /**
   * @throws IllegalStateException when the calling thread is not running the owner's events
   */
  void check() {
    if (!owns()) {
      throw new IllegalStateException(
          "scheduler state touched outside its owner, on thread " + Thread.currentThread());
    }
  }

  private void drain() {
    do {
      if (!runner.compareAndSet(null, Thread.currentThread())) {
        return; // another thread runs the owner (or this one, further up the stack)
      }
      try {
        for (Runnable event = events.poll(); event != null; event = events.poll()) {
          try {
            event.run();
          } catch (RuntimeException e) {
            // a bug in one event (an illegal transition, say) must not stop every later one
            log.error("scheduler event failed", e);
          }
        }
      } finally {
        runner.set(null);
      }
      // an event handed over between the last poll and the release is ours to run
    } while (!events.isEmpty());
  }
}
