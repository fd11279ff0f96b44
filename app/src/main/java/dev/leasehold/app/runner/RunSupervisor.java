package dev.leasehold.app.runner;

import dev.leasehold.core.job.JobContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces a command job's lease outside the JVM: the job runs under {@code supervisor.bash} (kept
 * in the jar, written at start to a directory only this user can read), which stops it by itself
 * when the lease's deadline passes without a renewal, or when the daemon's end of its stdin pipe
 * closes. So a job never outlives its lease, even while its daemon is stalled (SIGSTOP, a long GC
 * pause, a starved container) or after it died (SIGKILL of its process group).
 *
 * <p><b>Why the deadline is safe.</b> Deadlines are sent as instants of {@code /proc/uptime}, a
 * monotonic clock every process of the machine shares, not as durations: a line delayed by a pause
 * of the daemon between computing and writing it names an instant already past, and the supervisor
 * stops the job at once. The instant is computed from the lease's validity (the time the claim or
 * renewal was sent, plus the TTL, less a tenth of it), reading the uptime <b>before</b> the
 * validity, so a pause between the two reads only makes the deadline earlier; the uptime's
 * hundredths are rounded down and one hundredth more is taken off.
 *
 * <p>Without bash, {@code setsid} or {@code /proc/uptime} jobs run unsupervised, as before: the
 * daemon alone stops them, so a stalled or dead daemon leaves them running (one warning at start).
 */
final class RunSupervisor {
  private static final Logger log = LoggerFactory.getLogger(RunSupervisor.class);
  private static final Path UPTIME = Path.of("/proc/uptime");

  /** What the supervisor wrote in its status file when it stopped the job by itself. */
  static final String DEADLINE = "deadline";

  static final String DAEMON_GONE = "daemon-gone";

  private static final Optional<RunSupervisor> INSTANCE = create();

  private final Path bash;
  private final Path script;
  private final Path dir;

  private RunSupervisor(Path bash, Path script, Path dir) {
    this.bash = bash;
    this.script = script;
    this.dir = dir;
  }

  /** The supervisor, or empty when this system cannot run it (warned once). */
  static Optional<RunSupervisor> get() {
    return INSTANCE;
  }

  /**
   * One supervised run of {@code argv} for {@code context}; empty when jobs are unsupervised or the
   * context does not know its lease's validity (a context made by hand).
   */
  Optional<Run> supervise(JobContext context, String runId, Duration killGrace) {
    OptionalLong deadline = deadline(context);
    if (deadline.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Run(context, dir.resolve(runId + ".status"), killGrace, deadline.getAsLong()));
  }

  /** The lease's deadline in hundredths of a second of /proc/uptime, or empty when unknown. */
  private static OptionalLong deadline(JobContext context) {
    OptionalLong up = uptimeCentis(); // first: a pause before the next read shortens the lease
    OptionalLong left = context.leaseMillisLeft();
    if (up.isEmpty() || left.isEmpty()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(up.getAsLong() + left.getAsLong() / 10 - 1);
  }

  static OptionalLong uptimeCentis() {
    try {
      String s = Files.readString(UPTIME);
      String first = s.substring(0, s.indexOf(' '));
      int dot = first.indexOf('.');
      long whole = Long.parseLong(first.substring(0, dot));
      String frac = (first.substring(dot + 1) + "00").substring(0, 2);
      return OptionalLong.of(whole * 100 + Long.parseLong(frac));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** One job under the supervisor: its argv, the pipe that feeds it deadlines, its verdict. */
  final class Run {
    private final JobContext context;
    private final Path status;
    private final Duration killGrace;
    private final long firstDeadline;
    private final Object lock = new Object();
    private OutputStream pipe;

    private Run(JobContext context, Path status, Duration killGrace, long firstDeadline) {
      this.context = context;
      this.status = status;
      this.killGrace = killGrace;
      this.firstDeadline = firstDeadline;
    }

    /** {@code argv} run under the supervisor (to be started in a session of its own). */
    List<String> wrap(List<String> argv) {
      List<String> out = new ArrayList<>(argv.size() + 5);
      out.add(bash.toString());
      out.add(script.toString());
      out.add(status.toString());
      out.add(Long.toString(Math.max(0, (killGrace.toMillis() + 9) / 10)));
      out.add(Long.toString(firstDeadline));
      out.addAll(argv);
      return out;
    }

    /** The process started: from now on every renewal moves the deadline. */
    void started(OutputStream stdin) {
      synchronized (lock) {
        pipe = stdin;
      }
      context.onLeaseRenewed(this::renewed);
    }

    private void renewed() {
      synchronized (lock) {
        if (pipe == null) {
          return;
        }
        OptionalLong deadline = deadline(context);
        if (deadline.isEmpty()) {
          return;
        }
        try {
          pipe.write((deadline.getAsLong() + "\n").getBytes(StandardCharsets.US_ASCII));
          pipe.flush();
        } catch (IOException e) {
          // the supervisor is gone: its exit is seen by the runner
        }
      }
    }

    /**
     * The run ended: closes the pipe; returns why the supervisor stopped the job by itself, as a
     * history detail, or empty when it did not.
     */
    Optional<String> finish() {
      synchronized (lock) {
        if (pipe != null) {
          try {
            pipe.close();
          } catch (IOException e) {
            // already broken
          }
          pipe = null;
        }
      }
      String why;
      try {
        why = Files.readString(status).strip();
        Files.deleteIfExists(status);
      } catch (IOException e) {
        return Optional.empty(); // no status file: the supervisor stopped nothing
      }
      return Optional.of(
          switch (why) {
            case DEADLINE ->
                "stopped by its supervisor at the lease deadline: the daemon did not renew the"
                    + " lease in time (paused or starved)";
            case DAEMON_GONE -> "stopped by its supervisor: the daemon's pipe closed";
            default -> "stopped by its supervisor (" + why + ")";
          });
    }
  }

  private static Optional<RunSupervisor> create() {
    Path bash = Executables.find("bash", "/usr/bin:/bin", null);
    String missing =
        bash == null
            ? "no bash"
            : !Executables.canStartInNewSession()
                ? "no setsid program"
                : uptimeCentis().isEmpty() ? "no readable /proc/uptime" : null;
    if (missing != null) {
      log.warn(
          "{}: command jobs run without their supervisor, so a job is stopped at its lease's"
              + " deadline only while the daemon runs; a paused or dead daemon leaves it running",
          missing);
      return Optional.empty();
    }
    try {
      Path dir =
          Files.createTempDirectory(
              "leasehold-supervisor-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      dir.toFile().deleteOnExit();
      Path script = dir.resolve("supervisor.bash");
      try (InputStream in = RunSupervisor.class.getResourceAsStream("supervisor.bash")) {
        if (in == null) {
          throw new IOException("supervisor.bash is missing from the jar");
        }
        Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      }
      script.toFile().deleteOnExit();
      return Optional.of(new RunSupervisor(bash, script, dir));
    } catch (IOException | UnsupportedOperationException e) {
      log.warn(
          "cannot write the command jobs' supervisor ({}): they run without it, so a job is"
              + " stopped at its lease's deadline only while the daemon runs",
          e.getMessage());
      return Optional.empty();
    }
  }
}
