package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance self-check through the CLI: {@code validate --connect} refuses a store that
 * answers but misbehaves (exit 2, one line naming the behaviour), and {@code run} schedules nothing
 * on it, retrying until the server is fixed.
 */
class StoreSelfCheckCliTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private Path config(String server) throws Exception {
    Path config = dir.resolve("run.yaml");
    Files.writeString(
        config,
        "store:\n  type: memory\n  url: memory:"
            + server
            + "\n"
            + "jobs:\n  - name: tick\n    every: 1s\n    command: [\"true\"]\n");
    return config;
  }

  @Test
  void validateConnectRefusesAStoreThatForgetsTheWatermark() throws Exception {
    String name = "forgetful-" + UUID.randomUUID();
    MemoryStoreType.server(name).setForgetsTheWatermark(true);
    CliHarness.Result result =
        new CliHarness().run("validate", "--connect", "--config", config(name).toString());
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err().strip())
        .isEqualTo(
            "leasehold: "
                + dir.resolve("run.yaml")
                + ": store memory at memory:"
                + name
                + ": the server accepted a claim of a firing already run (the watermark did not"
                + " hold); Leasehold cannot run safely on it");
  }

  @Test
  void validateConnectPassesOnAStoreThatBehaves() throws Exception {
    String name = "sound-" + UUID.randomUUID();
    CliHarness.Result result =
        new CliHarness().run("validate", "--connect", "--config", config(name).toString());
    assertThat(result.code()).isZero();
    assertThat(result.out()).contains("self-check passed");
  }

  @Test
  void runSchedulesNothingOnAMisbehavingStoreAndStartsOnceItIsFixed() throws Exception {
    String name = "forgetful-" + UUID.randomUUID();
    MemoryStoreType.Server server = MemoryStoreType.server(name);
    server.setForgetsTheWatermark(true);
    CliHarness cli = new CliHarness();
    Path config = config(name);

    CompletableFuture<CliHarness.Result> run =
        CompletableFuture.supplyAsync(() -> cli.run("run", "--config", config.toString()));
    Poll.until("a second self-check", LIMIT, () -> server.openAttempts() >= 4);
    assertThat(run).isNotDone();
    assertThat(server.history.all()).as("nothing ran on the misbehaving store").isEmpty();
    assertThat(server.leases.client().inspect("tick")).as("no job lease taken").isEmpty();

    server.setForgetsTheWatermark(false);
    Poll.until(
        "an execution once the store is fixed", LIMIT, () -> !server.history.all().isEmpty());
    cli.sendShutdown();
    assertThat(run.get(LIMIT.toSeconds(), TimeUnit.SECONDS).code()).isZero();
  }
}
