package dev.leasehold.app.runner;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finding a job's program, and starting it in a session of its own. */
final class Executables {
  private static final Logger log = LoggerFactory.getLogger(Executables.class);

  /** {@code setsid} (util-linux, busybox), or {@code null} when the system has none. */
  private static final Path SETSID = findSetsid();

  private Executables() {}

  /** Whether {@link #inNewSession} really starts a new session (there is a setsid program). */
  static boolean canStartInNewSession() {
    return SETSID != null;
  }

  /**
   * The argv that runs {@code argv} in a new session and process group: {@code setsid} calls
   * setsid(2) and execs the program in place (a child of the JVM is never a group leader, so it
   * does not fork), so the pid Java sees is the job's own.
   */
  static List<String> inNewSession(List<String> argv) {
    if (SETSID == null) {
      return argv;
    }
    List<String> out = new ArrayList<>(argv.size() + 1);
    out.add(SETSID.toString());
    out.addAll(argv);
    return out;
  }

  /**
   * Where {@code program} is: a name with a {@code /} relative to {@code workdir}, else the first
   * executable of that name on {@code path}; {@code null} when there is none.
   */
  static Path find(String program, String path, File workdir) {
    if (program.contains("/")) {
      Path p = Path.of(program);
      if (!p.isAbsolute() && workdir != null) {
        p = workdir.toPath().resolve(p);
      }
      return Files.isRegularFile(p) && Files.isExecutable(p) ? p : null;
    }
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static Path findSetsid() {
    for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
      Path p = Path.of(dir, "setsid");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    log.warn(
        "no setsid program: command jobs share the daemon's process group, so a Ctrl-C at its"
            + " terminal reaches them too");
    return null;
  }
}
