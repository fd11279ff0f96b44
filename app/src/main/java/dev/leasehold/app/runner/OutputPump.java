package dev.leasehold.app.runner;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Copies one output stream of a job's process into the log, line by line, tagged with the job (MDC
 * key {@code job}) and the stream. Runs on its own daemon thread, which ends when the stream closes
 * (that is, when the last process holding the pipe, possibly a grandchild, exits).
 */
final class OutputPump implements Runnable {
  /** The logger of job output; its name lets operators filter or silence job output. */
  static final Logger OUTPUT = LoggerFactory.getLogger("leasehold.job");

  private static final int MAX_LINE = 8192;

  private final InputStream stream;
  private final String job;
  private final boolean stderr;

  private OutputPump(InputStream stream, String job, boolean stderr) {
    this.stream = stream;
    this.job = job;
    this.stderr = stderr;
  }

  static Thread start(InputStream stream, String job, boolean stderr) {
    Thread t =
        new Thread(
            new OutputPump(stream, job, stderr), "job-" + job + (stderr ? "-stderr" : "-stdout"));
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public void run() {
    MDC.put("job", job);
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.length() > MAX_LINE) {
          line = line.substring(0, MAX_LINE) + "…";
        }
        if (stderr) {
          OUTPUT.info("[stderr] {}", line);
        } else {
          OUTPUT.info("{}", line);
        }
      }
    } catch (IOException e) {
      // the pipe was closed under us (process killed): nothing more to copy
    } finally {
      MDC.remove("job");
    }
  }
}
