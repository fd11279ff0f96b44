package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.job.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} through the real entry point: it fires jobs, survives a store outage, stops on
 * signal.
 */
class RunCommandTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void runFiresJobsOnH2AndStopsGracefullyWithExit0() throws Exception {
    Path ledger = dir.resolve("ledger.txt");
    Path config = dir.resolve("run.yaml");
    Files.writeString(
        config,
        "node: runner-1\nstore:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("db")
            + "\n"
            + "jobs:\n  - name: tick\n    every: 1s\n"
            + "    command: [\"sh\", \"-c\", \"echo $LEASEHOLD_FIRE_TIME $LEASEHOLD_FENCE >> '"
            + ledger
            + "'\"]\n");
    CliHarness cli = new CliHarness();

    CompletableFuture<CliHarness.Result> run =
        CompletableFuture.supplyAsync(() -> cli.run("run", "--config", config.toString()));
    Poll.until("two firings in the ledger", LIMIT, () -> lines(ledger) >= 2);
    cli.sendShutdown();
    CliHarness.Result result = run.get(LIMIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(result.code()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(Files.readAllLines(ledger))
        .allSatisfy(
            l -> assertThat(l).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.000Z \\d+"));
  }

  @Test
  void runDoesNotExitWhileTheStoreIsDownAndStartsWhenItComesBack() throws Exception {
    String name = "outage-" + UUID.randomUUID();
    MemoryStoreType.Server server = MemoryStoreType.server(name);
    server.setReachable(false);
    Path config = dir.resolve("run.yaml");
    Files.writeString(
        config,
        "store:\n  type: memory\n  url: memory:"
            + name
            + "\n"
            + "jobs:\n  - name: tick\n    every: 1s\n    command: [\"true\"]\n");
    CliHarness cli = new CliHarness();

    CompletableFuture<CliHarness.Result> run =
        CompletableFuture.supplyAsync(() -> cli.run("run", "--config", config.toString()));
    Poll.until("a second attempt to open the store", LIMIT, () -> server.openAttempts() >= 2);
    assertThat(run).isNotDone();

    server.setReachable(true);
    Poll.until(
        "an execution once the store is back",
        LIMIT,
        () -> server.history.all().stream().anyMatch(r -> r.outcome() == Outcome.SUCCEEDED));
    cli.sendShutdown();

    assertThat(run.get(LIMIT.toSeconds(), TimeUnit.SECONDS).code()).isZero();
  }

  private static long lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (Exception e) {
      return 0;
    }
  }
}
