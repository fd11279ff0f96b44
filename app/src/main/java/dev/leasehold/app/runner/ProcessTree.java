package dev.leasehold.app.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and ends every process one run of a command job started: SIGTERM to all of them, then
 * SIGKILL to whatever is still alive after the kill grace.
 *
 * <p>A run's processes are found two ways. {@link ProcessHandle#descendants()} of the job's process
 * (snapshotted <b>before</b> the first signal: once a parent dies its children are re-parented and
 * no longer show up), and the run's marker: the job's process gets {@code
 * LEASEHOLD_RUN_ID=<random>} in its environment, every descendant inherits it, and {@code
 * /proc/<pid>/environ} (the environment a process was started with) still shows it after a double
 * fork, {@code setsid} or re-parenting to PID 1. Limits: a process that starts a program with a
 * scrubbed environment ({@code env -i}) or runs as another user is found only while it is still a
 * descendant.
 *
 * <p>A zombie (exited, not yet reaped: common under a PID 1 that does not reap) counts as gone.
 */
final class ProcessTree {
  private static final Logger log = LoggerFactory.getLogger(ProcessTree.class);
  private static final long POLL_MILLIS = 50;

  /** The environment variable that marks every process of one run. */
  static final String RUN_ID = "LEASEHOLD_RUN_ID";

  private ProcessTree() {}

  /** A new run marker value. */
  static String newRunId() {
    return UUID.randomUUID().toString();
  }

  /**
   * Terminates {@code root}, its descendants and every process marked with {@code runId}; returns
   * once all are gone or were SIGKILLed.
   *
   * @return how many processes were signalled (the root included when it was still alive)
   */
  static int terminate(ProcessHandle root, String runId, Duration killGrace) {
    Set<ProcessHandle> tree = snapshot(root, runId);
    if (tree.isEmpty()) {
      return 0;
    }
    tree.forEach(ProcessHandle::destroy); // SIGTERM
    long deadline = System.nanoTime() + killGrace.toNanos();
    while (tree.stream().anyMatch(ProcessTree::running) && System.nanoTime() < deadline) {
      pause();
    }
    // processes started during the grace
    tree.addAll(snapshot(root, runId));
    List<ProcessHandle> survivors = new ArrayList<>();
    for (ProcessHandle p : tree) {
      if (running(p)) {
        survivors.add(p);
        p.destroyForcibly(); // SIGKILL
      }
    }
    if (!survivors.isEmpty()) {
      log.warn(
          "{} process(es) ignored SIGTERM for {} ms and were killed: {}",
          survivors.size(),
          killGrace.toMillis(),
          survivors.stream().map(ProcessHandle::pid).toList());
    }
    if (root.isAlive()) {
      try {
        root.onExit().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.warn("process {} did not exit after SIGKILL", root.pid());
      }
    }
    return tree.size();
  }

  /** Every running process of the run: descendants of {@code root}, then the marked ones. */
  static Set<ProcessHandle> snapshot(ProcessHandle root, String runId) {
    Set<ProcessHandle> tree = new LinkedHashSet<>();
    // children first, so the parent cannot re-spawn them between two signals unnoticed
    root.descendants().filter(ProcessTree::running).forEach(tree::add);
    tree.addAll(marked(runId));
    if (running(root)) {
      tree.add(root);
    }
    return tree;
  }

  /** The processes whose start-up environment holds {@code LEASEHOLD_RUN_ID=runId}. */
  static List<ProcessHandle> marked(String runId) {
    byte[] needle = (RUN_ID + "=" + runId).getBytes(StandardCharsets.UTF_8);
    List<ProcessHandle> found = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path dir : procs) {
        long pid = Long.parseLong(dir.getFileName().toString());
        if (pid != self && holds(dir.resolve("environ"), needle)) {
          ProcessHandle.of(pid).filter(ProcessTree::running).ifPresent(found::add);
        }
      }
    } catch (IOException | RuntimeException e) {
      // no /proc (not Linux): descendants only
    }
    return found;
  }

  private static boolean holds(Path environ, byte[] needle) {
    byte[] env;
    try {
      env = Files.readAllBytes(environ);
    } catch (IOException e) {
      return false; // gone, or another user's
    }
    // entries are NUL-separated: match a whole entry
    outer:
    for (int i = 0; i + needle.length <= env.length; i++) {
      if (i > 0 && env[i - 1] != 0) {
        continue;
      }
      for (int j = 0; j < needle.length; j++) {
        if (env[i + j] != needle[j]) {
          continue outer;
        }
      }
      if (i + needle.length == env.length || env[i + needle.length] == 0) {
        return true;
      }
    }
    return false;
  }

  /** Alive and not a zombie: a zombie has exited and only waits to be reaped. */
  static boolean running(ProcessHandle p) {
    return p.isAlive() && !zombie(p.pid());
  }

  private static boolean zombie(long pid) {
    Optional<String> stat;
    try {
      stat = Optional.of(Files.readString(Path.of("/proc/" + pid + "/stat")));
    } catch (IOException | RuntimeException e) {
      stat = Optional.empty();
    }
    return stat.map(
            s -> {
              int end = s.lastIndexOf(')');
              char state = end >= 0 && end + 2 < s.length() ? s.charAt(end + 2) : '?';
              return state == 'Z' || state == 'X';
            })
        .orElse(false);
  }

  private static void pause() {
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      // a second stop request while already stopping: keep waiting out the grace
    }
  }
}
