package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code leasehold fence check --file PATH}: through the real entry point, and as the separate
 * processes a backup's writers are (the CLI's main class), a stale writer is refused with exit 1.
 */
class FenceCheckCliTest {
  @TempDir Path dir;

  @Test
  void aStaleFenceIsRefusedWithExit1AndTheHigherOneKept() throws Exception {
    Path file = dir.resolve("backup.fence");
    CliHarness newer = new CliHarness().env("LEASEHOLD_FENCE", "12");
    CliHarness stale = new CliHarness().env("LEASEHOLD_FENCE", "11");

    CliHarness.Result first = newer.run("fence", "check", "--file", file.toString());
    CliHarness.Result late = stale.run("fence", "check", "--file", file.toString());
    CliHarness.Result again = newer.run("fence", "check", "--file", file.toString());

    assertThat(first.code()).isZero();
    assertThat(late.code()).isEqualTo(1);
    assertThat(late.errLines())
        .containsExactly("leasehold: stale fence 11 for " + file + ": fence 12 was already seen");
    assertThat(again.code()).isZero();
    assertThat(Files.readString(file).strip()).isEqualTo("00000000000000000012");
  }

  @Test
  void noFenceIsBadUsage() {
    CliHarness.Result result =
        new CliHarness()
            .env("LEASEHOLD_FENCE", "")
            .run("fence", "check", "--file", dir.resolve("f").toString());

    assertThat(result.code()).isEqualTo(2);
    assertThat(result.errLines())
        .containsExactly(
            "leasehold: fence check: --fence is not given and LEASEHOLD_FENCE is not set");
  }

  @Test
  void writersInSeparateProcessesAreSerialisedByTheLock() throws Exception {
    Path file = dir.resolve("volume.fence");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> writers = new java.util.ArrayList<>();
    for (int fence = 1; fence <= 3; fence++) {
      ProcessBuilder pb =
          new ProcessBuilder(
              java,
              "-cp",
              System.getProperty("java.class.path"),
              "dev.leasehold.app.Main",
              "fence",
              "check",
              "--file",
              file.toString());
      pb.environment().put("LEASEHOLD_FENCE", Integer.toString(fence));
      pb.redirectErrorStream(true);
      pb.redirectOutput(dir.resolve("writer-" + fence + ".log").toFile());
      writers.add(pb.start());
    }
    int refused = 0;
    for (Process p : writers) {
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isIn(0, 1);
      refused += p.exitValue();
    }
    // whatever the order, fence 3 passes, the highest stays, and each refusal was a lower fence
    assertThat(Files.readString(file).strip()).isEqualTo("00000000000000000003");
    assertThat(Files.readString(dir.resolve("writer-3.log"))).contains("fence 3 recorded");
    assertThat(refused).isBetween(0, 2);
  }
}
