package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import org.junit.jupiter.api.Test;

/** Help, version and bad usage through the real entry point. */
class CliUsageTest {
  private final CliHarness cli = new CliHarness();

  @Test
  void helpListsEveryCommandAndExits0() {
    CliHarness.Result result = cli.run("--help");
    assertThat(result.code()).isZero();
    assertThat(result.out()).contains("run", "validate", "status", "history", "trigger");
  }

  @Test
  void everyCommandHasHelp() {
    for (String command : new String[] {"run", "validate", "status", "history", "trigger"}) {
      CliHarness.Result result = cli.run(command, "--help");
      assertThat(result.code()).as(command).isZero();
      assertThat(result.out()).as(command).contains("--config=FILE");
    }
  }

  @Test
  void versionNamesTheBuild() {
    CliHarness.Result result = cli.run("--version");
    assertThat(result.code()).isZero();
    assertThat(result.out()).startsWith("leasehold ").doesNotContain("${");
  }

  @Test
  void badUsageExits2WithOneLine() {
    for (String[] args :
        new String[][] {{"run"}, {"frobnicate"}, {"status", "--config", "x", "--colour"}}) {
      CliHarness.Result result = cli.run(args);
      assertThat(result.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(result.errLines()).as(String.join(" ", args)).hasSize(1);
    }
  }

  @Test
  void noCommandPrintsUsageAndExits2() {
    CliHarness.Result result = cli.run();
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err()).contains("Usage: leasehold");
  }
}
