package dev.leasehold.app.runner;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * Reads one output stream of a job's process line by line (each capped at {@link #MAX_LINE} bytes),
 * into the run's {@link OutputTail} for its history record and its {@link OutputLog} for the log
 * (stderr lines marked {@code [stderr]} in both). Runs on its own daemon thread, which ends when
 * the stream closes (that is, when the last process holding the pipe, possibly a grandchild,
 * exits).
 *
 * <p>The two pumps of a run place their lines through one {@link PipeOrder}: while the process
 * lives they read only what is waiting in their pipe, polling every 1 to {@value #MAX_POLL_MILLIS}
 * ms, and do nothing slow between two reads (the log is written on the {@link OutputLog}'s thread).
 */
final class OutputPump implements Runnable {
  /** Bytes kept of one output line (8 KiB); the rest of a longer line is dropped with a marker. */
  static final int MAX_LINE = 8192;

  /** The longest pause between two looks at an idle pipe while the process lives. */
  static final long MAX_POLL_MILLIS = 20;

  private static final int READ_SIZE = 64 * 1024;

  private final InputStream stream;
  private final boolean stderr;
  private final BooleanSupplier processAlive;
  private final PipeOrder order;
  private final OutputTail tail;
  private final OutputLog log;

  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private long dropped;

  private OutputPump(
      InputStream stream,
      boolean stderr,
      BooleanSupplier processAlive,
      PipeOrder order,
      OutputTail tail,
      OutputLog log) {
    this.stream = stream;
    this.stderr = stderr;
    this.processAlive = processAlive;
    this.order = order;
    this.tail = tail;
    this.log = log;
  }

  /** Starts the two pumps of {@code process}: stdout, then stderr. */
  static Thread[] start(Process process, String job, OutputTail tail, OutputLog log) {
    PipeOrder order = new PipeOrder();
    order.stdout(process.getInputStream());
    return new Thread[] {
      start(process.getInputStream(), job, false, process::isAlive, order, tail, log),
      start(process.getErrorStream(), job, true, process::isAlive, order, tail, log)
    };
  }

  private static Thread start(
      InputStream stream,
      String job,
      boolean stderr,
      BooleanSupplier processAlive,
      PipeOrder order,
      OutputTail tail,
      OutputLog log) {
    Thread t =
        new Thread(
            new OutputPump(stream, stderr, processAlive, order, tail, log),
            "job-" + job + (stderr ? "-stderr" : "-stdout"));
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public void run() {
    try (InputStream in = stream) {
      copyLines(in);
    } catch (IOException e) {
      // the pipe was closed under us (process killed): nothing more to copy
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      log.end();
    }
  }

  /**
   * Splits the stream at newlines without ever holding more than {@link #MAX_LINE} bytes of a line:
   * the rest of a longer line is counted and dropped, so a job that prints gigabytes without a
   * newline costs no memory.
   */
  private void copyLines(InputStream in) throws IOException, InterruptedException {
    byte[] buffer = new byte[READ_SIZE];
    long[] stamp = new long[1];
    boolean toEnd = false;
    long pause = 1;
    long end = 0; // bytes of this stream read so far
    while (true) {
      int n;
      if (toEnd) {
        n = order.readToEnd(stderr, in, buffer, stamp);
      } else {
        n = order.readWaiting(stderr, in, buffer, stamp);
        if (n == 0) {
          if (!processAlive.getAsBoolean()) {
            toEnd = true; // what is left comes now, or from a leftover process until it is stopped
          } else {
            Thread.sleep(pause);
            pause = Math.min(pause * 2, MAX_POLL_MILLIS);
          }
          continue;
        }
        pause = 1;
      }
      if (n < 0) {
        break;
      }
      for (int i = 0; i < n; i++) {
        byte b = buffer[i];
        if (b == '\n') {
          emit(order.place(stderr, stamp[0], end + i + 1));
        } else if (line.size() < MAX_LINE) {
          line.write(b);
        } else {
          dropped++;
        }
      }
      end += n;
    }
    if (line.size() > 0 || dropped > 0) {
      emit(order.place(stderr, stamp[0], end));
    }
  }

  private void emit(long place) throws InterruptedException {
    String text = line.toString(StandardCharsets.UTF_8);
    if (text.endsWith("\r")) {
      text = text.substring(0, text.length() - 1);
    }
    if (dropped > 0) {
      text = text + " [" + dropped + " more bytes of this line dropped]";
    }
    line.reset();
    dropped = 0;
    if (stderr) {
      text = "[stderr] " + text;
    }
    tail.add(place, text);
    log.add(text);
  }
}
