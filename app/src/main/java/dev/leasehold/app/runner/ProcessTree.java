package dev.leasehold.app.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and ends every process one run of a command job started: SIGTERM to the run's own process,
 * then to its process group and to the processes that left it, then SIGKILL to whatever is still
 * alive after the kill grace.
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

  /** How often, and how far apart, an empty environment is read again (see {@link #marked}). */
  private static final int EXEC_RETRIES = 10;

  private static final long EXEC_RETRY_MILLIS = 10;

  /** The {@code kill} program, which can signal a whole process group; null when missing. */
  private static final Path KILL = findKill();

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
   * <p>Order matters: SIGTERM reaches the run's whole process group in one signal (or, without a
   * group of its own, the run's own process first), then the processes that left the group. A shell
   * script that traps TERM and waits on a child must see the signal itself: signalled after its
   * child, its {@code wait} would return as if the child had simply ended and the script would go
   * on to its next line.
   *
   * @param supervised {@code root} is the run's supervisor, which stays on after SIGTERM to report
   *     the job's exit status and enforce the lease's deadline: it is not reported as having
   *     ignored SIGTERM
   * @return how many processes were signalled (the root included when it was still alive)
   */
  static int terminate(ProcessHandle root, String runId, Duration killGrace, boolean supervised) {
    Set<ProcessHandle> tree = snapshot(root, runId);
    if (tree.isEmpty()) {
      return 0;
    }
    long group = ownGroup(root, tree);
    Set<ProcessHandle> supervisor = supervised ? supervisor(root) : Set.of();
    signal(root, tree, group, false);
    long deadline = System.nanoTime() + killGrace.toNanos();
    while (tree.stream().anyMatch(ProcessTree::running) && System.nanoTime() < deadline) {
      pause();
    }
    // processes started during the grace
    tree.addAll(snapshot(root, runId));
    List<ProcessHandle> survivors = tree.stream().filter(ProcessTree::running).toList();
    if (!survivors.isEmpty()) {
      signal(root, survivors, group, true);
      List<Long> stubborn =
          survivors.stream().filter(p -> !supervisor.contains(p)).map(ProcessHandle::pid).toList();
      if (!stubborn.isEmpty()) {
        log.warn(
            "{} process(es) ignored SIGTERM for {} ms and were killed: {}",
            stubborn.size(),
            killGrace.toMillis(),
            stubborn);
      }
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

  /**
   * The supervisor's processes: {@code root} and its watcher (a subshell: a child of root with the
   * same command line). Both stay on after SIGTERM by design.
   */
  private static Set<ProcessHandle> supervisor(ProcessHandle root) {
    Set<ProcessHandle> out = new LinkedHashSet<>();
    out.add(root);
    Optional<String> line = root.info().commandLine();
    if (line.isPresent()) {
      root.children().filter(c -> c.info().commandLine().equals(line)).forEach(out::add);
    }
    return out;
  }

  /**
   * SIGTERM (or SIGKILL when {@code kill}) to the process group {@code group} in one signal when
   * there is one (root leads it), else to {@code root} first; then to each of {@code processes}
   * outside the group. Each process gets one SIGTERM: a second would run a shell's trap again.
   */
  private static void signal(
      ProcessHandle root, Collection<ProcessHandle> processes, long group, boolean kill) {
    if (group > 0) {
      signalGroup(group, kill); // root leads the group: one signal reaches it and the rest at once
    } else if (running(root)) {
      send(root, kill);
    }
    for (ProcessHandle p : processes) {
      // the group had its signal: a second SIGTERM would run a shell's trap a second time
      boolean signalled = group > 0 && !kill && processGroup(p.pid()) == group;
      if (!p.equals(root) && !signalled && running(p)) {
        send(p, kill);
      }
    }
  }

  private static void send(ProcessHandle p, boolean kill) {
    if (kill) {
      p.destroyForcibly(); // SIGKILL
    } else {
      p.destroy(); // SIGTERM
    }
  }

  /**
   * The process group the run's processes share: {@code root}'s pid when the run was started in a
   * group of its own ({@code setsid}) and the group still has a member; 0 otherwise. A group id
   * cannot be handed to a new process while the group has members, so signalling it cannot reach a
   * stranger.
   */
  static long ownGroup(ProcessHandle root, Collection<ProcessHandle> tree) {
    if (KILL == null) {
      return 0;
    }
    long id = root.pid();
    for (ProcessHandle p : tree) {
      if (running(p) && processGroup(p.pid()) == id) {
        return id;
      }
    }
    return 0;
  }

  /** Signals every process of group {@code id} at once through the {@code kill} program. */
  private static void signalGroup(long id, boolean kill) {
    try {
      Process p =
          new ProcessBuilder(
                  KILL.toString(), "-s", kill ? "KILL" : "TERM", "--", Long.toString(-id))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      log.warn("cannot signal process group {}: {}", id, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The process group of {@code pid} (field 5 of /proc/PID/stat), or -1 when unknown. */
  static long processGroup(long pid) {
    try {
      String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[2]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static Path findKill() {
    for (String dir : List.of("/usr/bin", "/bin")) {
      Path p = Path.of(dir, "kill");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    log.warn(
        "no kill program: a stopped command job's processes are signalled one by one (its own"
            + " process first), not as a process group");
    return null;
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

  /**
   * The processes whose start-up environment holds {@code LEASEHOLD_RUN_ID=runId}.
   *
   * <p>A process in the middle of an {@code execve} shows an empty environment for a moment (its
   * new memory is in place before its environment is): such processes, and only those (running, not
   * kernel threads), are read again a few times, {@value #EXEC_RETRY_MILLIS} ms apart, so a double
   * fork that is still starting its program when the job exits is found all the same.
   */
  static List<ProcessHandle> marked(String runId) {
    byte[] needle = (RUN_ID + "=" + runId).getBytes(StandardCharsets.UTF_8);
    List<ProcessHandle> found = new ArrayList<>();
    List<Long> unsure = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path dir : procs) {
        long pid = Long.parseLong(dir.getFileName().toString());
        if (pid != self) {
          sortInto(pid, environ(pid), needle, found, unsure);
        }
      }
    } catch (IOException | RuntimeException e) {
      // no /proc (not Linux): descendants only
    }
    for (int round = 0; round < EXEC_RETRIES && !unsure.isEmpty(); round++) {
      pause(EXEC_RETRY_MILLIS);
      List<Long> again = new ArrayList<>(unsure);
      unsure.clear();
      for (long pid : again) {
        sortInto(pid, environ(pid), needle, found, unsure);
      }
    }
    return found;
  }

  /** Adds {@code pid} to {@code found} when marked, to {@code unsure} when it may be in an exec. */
  private static void sortInto(
      long pid, byte[] env, byte[] needle, List<ProcessHandle> found, List<Long> unsure) {
    if (env == null) {
      return; // gone, or another user's
    }
    if (env.length == 0) {
      if (!kernelThread(pid)) {
        ProcessHandle.of(pid).filter(ProcessTree::running).ifPresent(p -> unsure.add(pid));
      }
      return;
    }
    if (holds(env, needle)) {
      ProcessHandle.of(pid).filter(ProcessTree::running).ifPresent(found::add);
    }
  }

  private static byte[] environ(long pid) {
    try {
      return Files.readAllBytes(Path.of("/proc/" + pid + "/environ"));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** PF_KTHREAD in the flags (field 9 of /proc/PID/stat): kernel threads have no environment. */
  private static boolean kernelThread(long pid) {
    try {
      String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[6]) & 0x00200000L) != 0;
    } catch (IOException | RuntimeException e) {
      return true; // gone: nothing to wait for
    }
  }

  /** Whether the NUL-separated entries of {@code env} hold {@code needle} as a whole entry. */
  private static boolean holds(byte[] env, byte[] needle) {
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
    pause(POLL_MILLIS);
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      // a second stop request while already stopping: keep waiting out the grace
    }
  }
}
