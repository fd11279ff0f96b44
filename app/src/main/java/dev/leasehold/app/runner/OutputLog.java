package dev.leasehold.app.runner;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Writes a run's output lines to the log (logger {@code leasehold.job}, MDC key {@code job}) on a
 * thread of its own, so that the pumps reading the process's pipes never wait for the log between
 * two reads: a pump that logged as it read would take its stamps late, and a slow log would reorder
 * stdout against stderr. Lines wait here up to {@link #BUDGET} characters; past that a pump waits,
 * its pipe fills and the job's writes block, as they would with a slow reader.
 */
final class OutputLog implements Runnable {
  /** The logger of job output; its name lets operators filter or silence job output. */
  static final Logger OUTPUT = LoggerFactory.getLogger("leasehold.job");

  /** Characters of output waiting for the log before a pump waits (1 Mi). */
  static final int BUDGET = 1 << 20;

  private static final String END = new String("end of a stream");

  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Semaphore room = new Semaphore(BUDGET);
  private final String job;
  private final int streams;
  private Thread thread;

  private OutputLog(String job, int streams) {
    this.job = job;
    this.streams = streams;
  }

  /** Starts the log of a run whose {@code streams} pumps each call {@link #end()} when done. */
  static OutputLog start(String job, int streams) {
    OutputLog log = new OutputLog(job, streams);
    Thread t = new Thread(log, "job-" + job + "-log");
    t.setDaemon(true);
    log.thread = t;
    t.start();
    return log;
  }

  /**
   * The thread that writes the lines; it ends after every stream ended and its lines were logged.
   */
  Thread thread() {
    return thread;
  }

  void add(String line) throws InterruptedException {
    room.acquire(cost(line));
    lines.add(line);
  }

  void end() {
    lines.add(END);
  }

  @Override
  public void run() {
    MDC.put("job", job);
    try {
      int ended = 0;
      while (ended < streams) {
        String line = lines.take();
        if (line == END) {
          ended++;
          continue;
        }
        room.release(cost(line));
        OUTPUT.info("{}", line);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      MDC.remove("job");
    }
  }

  private static int cost(String line) {
    return Math.min(line.length() + 1, BUDGET);
  }
}
