package dev.leasehold.blackbox;

import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process the test started in its own session and process group ({@code setsid}), so that "the
 * container dies" is {@code kill -9 -<pgid>} and takes every child (running jobs) with it. Its
 * stdout and stderr go to one log file.
 */
public final class Proc {
  private final String name;
  private final Process process;
  private final Path log;

  private Proc(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} under {@code setsid}; its pid is then its process group id. */
  public static Proc start(String name, List<String> command, Map<String, String> env, Path log) {
    List<String> argv = new ArrayList<>();
    argv.add("setsid");
    argv.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + argv, e);
    }
    Proc proc = new Proc(name, process, log);
    // setsid execs in place (a child of the JVM is no group leader), so pid == pgid once it ran
    Poll.until(
        name + " to lead its own process group",
        Duration.ofSeconds(10),
        () -> !process.isAlive() || proc.pgidIsPid());
    return proc;
  }

  private boolean pgidIsPid() {
    try {
      String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[2]) == process.pid();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  public String name() {
    return name;
  }

  public Path log() {
    return log;
  }

  /** The process id (also its group's, see {@link #start}). */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * SIGKILL to the whole process group: the process dies; command jobs of a daemon run in sessions
   * of their own, so they are not in it.
   */
  public void killGroup() {
    signalGroup("KILL");
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError(name + " survived SIGKILL for 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGSTOP to the whole process group. */
  public void pauseGroup() {
    signalGroup("STOP");
  }

  /** SIGINT to the whole process group, as Ctrl-C at a terminal sends it. */
  public void interruptGroup() {
    signalGroup("INT");
  }

  /** Waits for the process to exit; returns its exit code. */
  public int awaitExit(Duration limit) {
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(name + " did not exit within " + limit);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return process.exitValue();
  }

  /** SIGCONT to the whole process group. */
  public void resumeGroup() {
    signalGroup("CONT");
  }

  /** SIGTERM to the process itself (a graceful stop); returns its exit code. */
  public int terminate(Duration limit) {
    process.destroy();
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(name + " did not stop within " + limit + " after SIGTERM");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return process.exitValue();
  }

  /** Kills the group whatever state it is in (cleanup; SIGKILL also ends a stopped process). */
  void destroy() {
    if (process.isAlive()) {
      signalGroup("KILL");
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * {@code kill -s SIGNAL PID}: to the daemon alone, not to the jobs it runs (as an operator's
   * {@code kill -HUP} or systemd's reload does).
   */
  public void signal(String signal) {
    send(signal, Long.toString(process.pid()));
  }

  private void signalGroup(String signal) {
    send(signal, "-" + process.pid());
  }

  private void send(String signal, String target) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-s", signal, "--", target).redirectErrorStream(true).start();
      String out = new String(kill.getInputStream().readAllBytes());
      if (kill.waitFor() != 0 && process.isAlive()) {
        throw new AssertionError("kill -" + signal + " " + target + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  public boolean logContains(String text) {
    return output().contains(text);
  }

  public String tail(int lines) {
    List<String> all = output().lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ")";
  }
}
