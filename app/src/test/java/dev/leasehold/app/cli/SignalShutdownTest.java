package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM on a real JVM: the graceful stop finishes before any JVM shutdown hook runs, so a
 * library's hook (H2's closes the database) cannot pull the store from under the stop.
 */
class SignalShutdownTest {
  @TempDir Path dir;

  @Test
  void theStopFinishesBeforeAnyShutdownHookRuns() throws Exception {
    assertThat(sigtermOrder("signals"))
        .containsExactly("ready", "stop began", "stop finished", "library hook ran");
  }

  @Test
  void aDaemonStartedUnderNohupSaysThatSighupCannotReloadAndKeepsRunning() throws Exception {
    Daemon d = daemon(true);
    assertThat(d.log()).contains("SIGHUP is ignored in this process").contains("POST /reload");

    d.signal("HUP");
    Thread.sleep(1500);
    assertThat(d.process().isAlive()).as("alive after SIGHUP").isTrue();
    assertThat(d.log()).doesNotContain("SIGHUP received");
    assertThat(d.stop()).as("exit code after SIGTERM").isZero();
  }

  @Test
  void aDaemonStartedAsUsualReloadsOnSighupAndSaysNothingAboutIt() throws Exception {
    Daemon d = daemon(false);
    assertThat(d.log()).doesNotContain("SIGHUP is ignored");

    d.signal("HUP");
    Poll.until("the reload", Duration.ofSeconds(60), () -> d.log().contains("config reloaded"));
    assertThat(d.stop()).as("exit code after SIGTERM").isZero();
  }

  /** {@code run} of a one-job H2 file as its own JVM, through {@code nohup} or not. */
  private Daemon daemon(boolean nohup) throws Exception {
    Path config = dir.resolve("leasehold.yaml");
    Files.writeString(
        config,
        "node: signals\nstore:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("store")
            + "\njobs:\n  - name: tick\n    every: 2s\n    command: [\"true\"]\n");
    List<String> command = new java.util.ArrayList<>();
    if (nohup) {
      command.add("nohup");
    }
    command.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            "dev.leasehold.app.Main",
            "run",
            "--config",
            config.toString()));
    Path log = dir.resolve("daemon.log");
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    Daemon d = new Daemon(p, log);
    Poll.until("the daemon to start", Duration.ofSeconds(60), () -> d.log().contains("started:"));
    return d;
  }

  private record Daemon(Process process, Path logFile) {
    String log() {
      return String.join("\n", read(logFile));
    }

    void signal(String name) throws Exception {
      Process kill = new ProcessBuilder("kill", "-" + name, "" + process.pid()).start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(kill.exitValue()).isZero();
    }

    int stop() throws Exception {
      process.destroy(); // SIGTERM
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(log()).isTrue();
      return process.exitValue();
    }
  }

  private List<String> sigtermOrder(String mode) throws Exception {
    Path out = dir.resolve(mode + ".txt");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SignalShutdownProbe.class.getName(),
                mode,
                out.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(mode + ".log").toFile())
            .start();
    Poll.until("the probe is ready", Duration.ofSeconds(60), () -> read(out).contains("ready"));
    p.destroy(); // SIGTERM
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return read(out);
  }

  private static List<String> read(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }
}
