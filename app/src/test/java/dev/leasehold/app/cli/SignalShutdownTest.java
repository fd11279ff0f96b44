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
