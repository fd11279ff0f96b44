package dev.leasehold.core.testing;

import dev.leasehold.core.time.Cancellable;
import dev.leasehold.core.time.TaskTimer;
import dev.leasehold.core.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Virtual time for scheduler tests: a {@link TaskTimer}, a monotonic {@link Ticker}, wall clocks
 * (optionally skewed, also mid-test) and a worker {@link Executor}, all driven by {@link #advance}.
 * Workers are real threads, so job bodies and store calls run as they would in production, but time
 * moves only when the test says so: {@code advance} runs every due timer task in order and, between
 * steps, waits until every worker has finished or is blocked in {@link #sleep} (quiescence). Job
 * bodies model work with {@link #sleep}, which a scheduler can interrupt like a real job.
 */
public final class VirtualTime implements TaskTimer, Ticker {
  private static final long QUIESCENCE_LIMIT_NANOS = Duration.ofSeconds(20).toNanos();

  private final Instant origin;
  private final ExecutorService pool = Executors.newCachedThreadPool(VirtualTime::daemon);
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private final Map<Thread, Sleeper> sleepers = new HashMap<>();
  private long nanos;
  private long sequence;
  private int busyWorkers;

  private record Task(long due, long seq, Runnable action, boolean[] cancelled)
      implements Comparable<Task> {
    @Override
    public int compareTo(Task o) {
      return due != o.due ? Long.compare(due, o.due) : Long.compare(seq, o.seq);
    }
  }

  private static final class Sleeper {
    boolean woken;
  }

  public VirtualTime(Instant origin) {
    this.origin = origin;
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "virtual-worker");
    t.setDaemon(true);
    return t;
  }

  /** The true virtual instant. */
  public synchronized Instant now() {
    return origin.plusNanos(nanos);
  }

  /** A wall clock that reads virtual time plus {@code skew}; the skew can change later. */
  public SkewedClock clock(Duration skew) {
    return new SkewedClock(skew);
  }

  public Clock clock() {
    return clock(Duration.ZERO);
  }

  /** A clock whose distance from true virtual time can be changed mid-test (an NTP jump). */
  public final class SkewedClock extends Clock {
    private volatile Duration skew;

    private SkewedClock(Duration skew) {
      this.skew = skew;
    }

    public void setSkew(Duration skew) {
      this.skew = skew;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now().plus(skew);
    }
  }

  @Override
  public synchronized long nanoTime() {
    return nanos;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, Duration delay) {
    boolean[] cancelled = {false};
    tasks.add(new Task(nanos + Math.max(0, delay.toNanos()), sequence++, task, cancelled));
    return () -> {
      synchronized (VirtualTime.this) {
        cancelled[0] = true;
      }
    };
  }

  @Override
  public void close() {}

  /** Runs tasks on real threads, counted for quiescence. */
  public Executor workers() {
    return command -> {
      synchronized (this) {
        busyWorkers++;
      }
      pool.execute(
          () -> {
            try {
              command.run();
            } finally {
              synchronized (this) {
                busyWorkers--;
                notifyAll();
              }
            }
          });
    };
  }

  /** Blocks the calling worker for {@code d} of virtual time; interruptible. */
  public void sleep(Duration d) throws InterruptedException {
    Sleeper sleeper = new Sleeper();
    Thread me = Thread.currentThread();
    synchronized (this) {
      schedule(
          () -> {
            synchronized (this) {
              sleeper.woken = true;
              notifyAll();
            }
          },
          d);
      sleepers.put(me, sleeper);
      notifyAll();
      try {
        while (!sleeper.woken) {
          wait();
        }
      } finally {
        sleepers.remove(me);
        notifyAll();
      }
    }
  }

  /** Moves virtual time forward by {@code d}, running everything that comes due. */
  public void advance(Duration d) {
    long target;
    synchronized (this) {
      target = nanos + d.toNanos();
    }
    while (true) {
      awaitQuiescence();
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due > target) {
          nanos = target;
          break;
        }
        tasks.poll();
        nanos = Math.max(nanos, next.due);
        if (next.cancelled[0]) {
          continue;
        }
      }
      next.action.run();
    }
    awaitQuiescence();
  }

  /** Advances until {@code instant} (true virtual time). */
  public void advanceTo(Instant instant) {
    advance(Duration.between(now(), instant));
  }

  private synchronized boolean quiescent() {
    long sleeping =
        sleepers.entrySet().stream()
            .filter(e -> !e.getValue().woken && !e.getKey().isInterrupted())
            .count();
    return busyWorkers == sleeping;
  }

  private synchronized void awaitQuiescence() {
    long end = System.nanoTime() + QUIESCENCE_LIMIT_NANOS;
    while (!quiescent()) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(
            "workers did not settle: " + busyWorkers + " busy, " + sleepers.size() + " sleeping");
      }
      try {
        wait(Math.max(1, Math.min(10, left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  /** Stops the worker threads. */
  public void shutdown() {
    pool.shutdownNow();
  }
}
