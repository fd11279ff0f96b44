package dev.leasehold.blackbox;

import dev.leasehold.app.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One replica: {@code java -jar leasehold.jar run --config <file>} in its own process group,
 * optionally with its wall clock shifted by libfaketime ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}, so
 * only the wall clock moves; sleeps and timers keep real time). {@link #restart} starts it again
 * with the same config and clock.
 */
public final class Daemon {
  /** Small heap and stacks beside {@link BlackBox#jvmOptions()}: several daemons share 2 cores. */
  private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-Xss512k");

  private static final Duration START_LIMIT = Duration.ofSeconds(90);

  private final BlackBox box;
  private final String node;
  private final Path config;
  private final double skewSeconds;
  private final List<Path> extraClasspath;
  private Proc proc;

  private Daemon(
      BlackBox box, String node, Path config, double skewSeconds, List<Path> extraClasspath) {
    this.box = box;
    this.node = node;
    this.config = config;
    this.skewSeconds = skewSeconds;
    this.extraClasspath = List.copyOf(extraClasspath);
  }

  /** Starts {@code java -jar leasehold.jar run --config config} with the clock shifted. */
  public static Daemon start(BlackBox box, String node, Path config, double skewSeconds) {
    return start(box, node, config, skewSeconds, List.of());
  }

  /**
   * Starts the daemon's main class with {@code extraClasspath} after the jar (test-only store
   * modules found by the same ServiceLoader discovery).
   */
  public static Daemon start(
      BlackBox box, String node, Path config, double skewSeconds, List<Path> extraClasspath) {
    Daemon daemon = new Daemon(box, node, config, skewSeconds, extraClasspath);
    daemon.launch();
    return daemon;
  }

  private void launch() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(BlackBox.jvmOptions());
    command.addAll(JVM_OPTIONS);
    if (extraClasspath.isEmpty()) {
      command.addAll(List.of("-jar", BlackBox.jar().toString()));
    } else {
      StringBuilder cp = new StringBuilder(BlackBox.jar().toString());
      extraClasspath.forEach(p -> cp.append(':').append(p));
      command.addAll(List.of("-cp", cp.toString(), "dev.leasehold.app.Main"));
    }
    command.addAll(List.of("run", "--config", config.toString()));
    Map<String, String> env = new HashMap<>();
    if (skewSeconds != 0) {
      env.put("LD_PRELOAD", BlackBox.faketime().toString());
      env.put("FAKETIME", String.format(Locale.ROOT, "%+.1f", skewSeconds));
      env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
      // without this, libfaketime slows every JVM clock call down: start-up 5x slower, and the
      // first store connection times out (docs/testing.md)
      env.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }
    proc = box.start(node, command, env);
  }

  /** Waits until the scheduler runs (the daemon logs {@code started:}). */
  public Daemon awaitStarted() {
    Proc current = proc;
    Poll.until(
        node + " to start (log " + current.log() + ")",
        START_LIMIT,
        () -> {
          if (!current.isAlive()) {
            throw new AssertionError(node + " exited during start-up:\n" + current.tail(40));
          }
          return current.logContains("] started: ");
        });
    return this;
  }

  public String node() {
    return node;
  }

  public Path config() {
    return config;
  }

  public Proc proc() {
    return proc;
  }

  /** SIGKILL to the daemon and every job it runs; the test notes it in the ledger. */
  public void kill(Path ledger) {
    proc.killGroup();
    if (ledger != null) {
      BlackBox.append(ledger, "killed " + node);
    }
  }

  public void restart() {
    if (proc.isAlive()) {
      throw new IllegalStateException(node + " is still running");
    }
    launch();
  }

  public void pause() {
    proc.pauseGroup();
  }

  public void resume() {
    proc.resumeGroup();
  }

  /** Ctrl-C at the daemon's terminal: SIGINT to its whole process group; returns the exit code. */
  public int ctrlC() {
    proc.interruptGroup();
    return proc.awaitExit(Duration.ofSeconds(60));
  }

  /** Graceful stop (SIGTERM); returns the exit code. */
  public int stop() {
    return proc.terminate(Duration.ofSeconds(60));
  }

  public boolean logged(String text) {
    return proc.logContains(text);
  }

  @Override
  public String toString() {
    return node
        + (skewSeconds == 0 ? "" : String.format(Locale.ROOT, " (clock %+.1fs)", skewSeconds));
  }
}
