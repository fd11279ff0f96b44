package dev.leasehold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code scripts/check-model.sh}: Spin checks the lease protocol's model
 * (docs/model/lease.pml) exhaustively and must find every property to hold, and must reject each
 * broken variant. Without spin or gcc the test is skipped, except under CI ({@code CI=true}), where
 * it fails.
 */
class ProtocolModelTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theProtocolHoldsAndEveryBrokenVariantIsRejected() throws IOException, InterruptedException {
    boolean tools = onPath("spin") && onPath("gcc");
    if (!tools) {
      String message =
          "spin and gcc are needed: apt-get install spin gcc (or bash .ci/services.sh)";
      assertThat("true".equalsIgnoreCase(System.getenv("CI"))).as(message).isFalse();
      Assumptions.abort(message);
    }
    Path log = Files.createTempFile("check-model", ".log");
    try {
      Process p =
          new ProcessBuilder("bash", ROOT.resolve("scripts/check-model.sh").toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean done = p.waitFor(20, TimeUnit.MINUTES);
      if (!done) {
        p.destroyForcibly();
      }
      String output = Files.readString(log);
      System.out.print(output);
      assertThat(done).as("check-model.sh finished within 20 minutes").isTrue();
      assertThat(p.exitValue()).as("check-model.sh exit code; output:%n%s", output).isZero();
      assertThat(output).contains("ok   protocol:").doesNotContain("FAIL");
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private static boolean onPath(String tool) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
