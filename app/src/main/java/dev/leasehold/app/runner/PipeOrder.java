package dev.leasehold.app.runner;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;

/**
 * The order of a run's stdout and stderr lines, as closely as two pipes can tell it. Two pipes do
 * not say which of their bytes was written first, and a pump that lags (the machine is busy) reads
 * a backlog late; so each read takes a stamp, and each time the stderr pump reads, it also notes
 * how many stdout bytes were already waiting in their pipe: those were written before the stderr
 * bytes were read and are placed before them, however late the stdout pump gets to them. The one
 * case two pipes cannot decide (both had bytes waiting) is settled in favour of stderr coming last,
 * so the error a job prints after a backlog of output is its last line, not the first one dropped.
 *
 * <p>To look at the stdout pipe while its pump is not reading, the pumps read only what is already
 * waiting ({@link #readWaiting}) while the job's process lives, polling every few milliseconds;
 * once it has exited they read until end of stream ({@link #readToEnd}), without that look.
 */
final class PipeOrder {
  private final Object lock = new Object();
  private final ArrayDeque<long[]> before = new ArrayDeque<>(); // {stdout bytes, stderr stamp}
  private InputStream stdout;
  private long stamps;
  private long stdoutTaken;
  private boolean stdoutToEnd;

  /** The stdout stream, whose waiting bytes each stderr read counts. */
  void stdout(InputStream stream) {
    synchronized (lock) {
      stdout = stream;
    }
  }

  /**
   * Reads what is waiting in {@code in}, without blocking: the bytes read, 0 when none are waiting.
   * {@code stamp[0]} gets the read's stamp.
   */
  int readWaiting(boolean stderr, InputStream in, byte[] buffer, long[] stamp) throws IOException {
    synchronized (lock) {
      int waiting = in.available();
      if (waiting <= 0) {
        return 0;
      }
      int n = in.read(buffer, 0, Math.min(waiting, buffer.length));
      if (n > 0) {
        took(stderr, n, stamp);
      }
      return n;
    }
  }

  /** Reads from {@code in}, blocking: the bytes read, -1 at its end. */
  int readToEnd(boolean stderr, InputStream in, byte[] buffer, long[] stamp) throws IOException {
    if (!stderr) {
      synchronized (lock) {
        stdoutToEnd = true; // from now on a blocking read may hold the stream: nobody looks at it
      }
    }
    int n = in.read(buffer);
    if (n > 0) {
      synchronized (lock) {
        took(stderr, n, stamp);
      }
    }
    return n;
  }

  private void took(boolean stderr, int n, long[] stamp) throws IOException {
    long s = ++stamps;
    stamp[0] = s;
    if (!stderr) {
      stdoutTaken += n;
    } else if (stdout != null && !stdoutToEnd) {
      int waiting = stdout.available();
      if (waiting > 0) {
        before.addLast(new long[] {stdoutTaken + waiting, s});
      }
    }
  }

  /**
   * The place of a line: {@code stamp} is that of the read that completed it; for a stdout line,
   * {@code end} is the count of stdout bytes up to its end, and the line goes before the first
   * stderr read that found it waiting.
   */
  long place(boolean stderr, long stamp, long end) {
    long place = stamp * 2;
    if (stderr) {
      return place;
    }
    synchronized (lock) {
      while (!before.isEmpty() && before.peekFirst()[0] < end) {
        before.removeFirst();
      }
      return before.isEmpty() ? place : Math.min(place, before.peekFirst()[1] * 2 - 1);
    }
  }
}
