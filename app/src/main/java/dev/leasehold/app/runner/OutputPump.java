package dev.leasehold.app.runner;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Copies one output stream of a job's process into the log, line by line (each capped at {@link
 * #MAX_LINE} bytes), tagged with the job (MDC key {@code job}) and the stream, and into the run's
 * {@link OutputTail} for its history record (stderr lines marked {@code [stderr]} in both). Runs on
 * its own daemon thread, which ends when the stream closes (that is, when the last process holding
 * the pipe, possibly a grandchild, exits).
 */
final class OutputPump implements Runnable {
  /** The logger of job output; its name lets operators filter or silence job output. */
  static final Logger OUTPUT = LoggerFactory.getLogger("leasehold.job");

  /** Bytes kept of one output line (8 KiB); the rest of a longer line is dropped with a marker. */
  static final int MAX_LINE = 8192;

  private final InputStream stream;
  private final String job;
  private final boolean stderr;
  private final OutputTail tail;

  private OutputPump(InputStream stream, String job, boolean stderr, OutputTail tail) {
    this.stream = stream;
    this.job = job;
    this.stderr = stderr;
    this.tail = tail;
  }

  static Thread start(InputStream stream, String job, boolean stderr, OutputTail tail) {
    Thread t =
        new Thread(
            new OutputPump(stream, job, stderr, tail),
            "job-" + job + (stderr ? "-stderr" : "-stdout"));
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public void run() {
    MDC.put("job", job);
    try (InputStream in = new BufferedInputStream(stream, 16 * 1024)) {
      copyLines(in);
    } catch (IOException e) {
      // the pipe was closed under us (process killed): nothing more to copy
    } finally {
      MDC.remove("job");
    }
  }

  /**
   * Splits the stream at newlines without ever holding more than {@link #MAX_LINE} bytes: the rest
   * of a longer line is counted and dropped, so a job that prints gigabytes without a newline costs
   * no memory.
   */
  private void copyLines(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    long dropped = 0;
    boolean pending = false;
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        emit(line, dropped);
        line.reset();
        dropped = 0;
        pending = false;
        continue;
      }
      pending = true;
      if (line.size() < MAX_LINE) {
        line.write(b);
      } else {
        dropped++;
      }
    }
    if (pending) {
      emit(line, dropped);
    }
  }

  private void emit(ByteArrayOutputStream bytes, long dropped) {
    String line = bytes.toString(StandardCharsets.UTF_8);
    if (line.endsWith("\r")) {
      line = line.substring(0, line.length() - 1);
    }
    if (dropped > 0) {
      line = line + " [" + dropped + " more bytes of this line dropped]";
    }
    if (stderr) {
      OUTPUT.info("[stderr] {}", line);
      tail.add("[stderr] " + line);
    } else {
      OUTPUT.info("{}", line);
      tail.add(line);
    }
  }
}
