package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.scheduler.TriggerRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code backfill} through the real entry point against the in-memory store: the firings go to a
 * daemon ({@code run} in this JVM) or, with {@code --here}, run in the command; a repeat runs only
 * what has not succeeded; bad ranges exit 2.
 */
class BackfillCommandTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  @TempDir Path dir;
  private final String name = "backfill-" + UUID.randomUUID();
  private final MemoryStoreType.Server server = MemoryStoreType.server(name);
  private final CliHarness daemon = new CliHarness();
  private final CliHarness cli = new CliHarness();
  private CompletableFuture<CliHarness.Result> running;

  /** A whole hour, well in the past: every firing of it is past the schedule's grace. */
  private final Instant hour =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(3));

  @AfterEach
  void stopDaemon() throws Exception {
    if (running != null) {
      daemon.sendShutdown();
      assertThat(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS).code()).isZero();
    }
  }

  private Path config(String node) throws Exception {
    Path file = dir.resolve(node + ".yaml");
    Files.writeString(
        file,
        "node: "
            + node
            + "\nstore:\n  type: memory\n  url: memory:"
            + name
            + "\njobs:\n"
            + "  - name: etl\n    every: 10m\n    command: [\"sh\", \"-c\", \"echo $LEASEHOLD_FIRE_TIME\"]\n"
            + "  - name: load\n    after: etl\n    command: [\"true\"]\n");
    return file;
  }

  private CliHarness.Result backfill(Instant from, Instant to, String... more) throws Exception {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "backfill",
                "etl",
                "--config",
                config("ops").toString(),
                "--from",
                from.toString(),
                "--to",
                to.toString()));
    args.addAll(List.of(more));
    return cli.run(args.toArray(String[]::new));
  }

  private List<ExecutionRecord> backfilled() {
    return server.history.recent("etl", 100).stream()
        .filter(r -> r.trigger() == TriggerKind.BACKFILL)
        .toList();
  }

  @Test
  void aDaemonRunsEachFiringOnceAndARepeatOnlyTheNewOnes() throws Exception {
    Path config = config("replica-1");
    running = CompletableFuture.supplyAsync(() -> daemon.run("run", "--config", config.toString()));
    Poll.until("the daemon's node record", LIMIT, () -> !server.leases.client().nodes().isEmpty());

    Instant from = hour.plus(Duration.ofMinutes(20));
    CliHarness.Result first =
        backfill(from, from.plus(Duration.ofMinutes(30)), "--max-parallel", "2");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out().lines().toList())
        .hasSize(4)
        .last()
        .asString()
        .contains("3 firings, 3 succeeded, 0 not");
    assertThat(first.out()).contains("on replica-1");
    assertThat(backfilled())
        .extracting(ExecutionRecord::fireTime)
        .containsExactlyInAnyOrder(
            from, from.plus(Duration.ofMinutes(10)), from.plus(Duration.ofMinutes(20)));
    Poll.until("load after each", LIMIT, () -> server.history.recent("load", 10).size() == 3);

    CliHarness.Result wider = backfill(hour, from.plus(Duration.ofMinutes(30)));
    assertThat(wider.code()).as(wider.err()).isZero();
    assertThat(wider.out()).contains("already succeeded").contains("5 firings, 5 succeeded");
    assertThat(backfilled())
        .hasSize(5)
        .extracting(ExecutionRecord::fireTime)
        .doesNotHaveDuplicates();
  }

  @Test
  void hereRunsTheFiringsInTheCommandWithNoDaemon() throws Exception {
    CliHarness.Result r =
        backfill(hour, hour.plus(Duration.ofMinutes(20)), "--here", "--timeout", "5s");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("on ops/cli").contains("2 firings, 2 succeeded");
    assertThat(backfilled()).extracting(ExecutionRecord::node).containsOnly("ops/cli");
  }

  @Test
  void statusListsTheUpstreamFiringsAChildWaitsFor() throws Exception {
    ExecutionRecord up =
        new ExecutionRecord(
            "etl",
            hour,
            "replica-9",
            7,
            TriggerKind.SCHEDULED,
            hour,
            hour,
            Outcome.SUCCEEDED,
            0,
            null);
    server.history.record(
        TriggerRequest.after("load", up, "replica-9", Instant.now()).requestRow());

    CliHarness.Result json =
        cli.run("status", "--json", "--from-store", "--config", config("ops").toString());
    assertThat(json.code()).as(json.err()).isZero();
    JsonNode rows = new ObjectMapper().readTree(json.out());
    JsonNode load = rows.get(1);
    assertThat(load.get("schedule").asText()).isEqualTo("after etl");
    assertThat(load.get("next_fire").isNull()).isTrue();
    assertThat(load.get("waiting").get(0).asText()).isEqualTo(FireTimes.format(hour));
    assertThat(rows.get(0).has("waiting")).isFalse();

    CliHarness.Result table =
        cli.run("status", "--from-store", "--config", config("ops").toString());
    assertThat(table.out()).contains("waiting: " + FireTimes.format(hour));
  }

  @Test
  void firingsOlderThanTheHistoryKeptAreNotRun() throws Exception {
    Path config = dir.resolve("short.yaml");
    Files.writeString(
        config,
        Files.readString(config("ops"))
            .replace(
                "url: memory:" + name + "\n", "url: memory:" + name + "\n  history: {keep: 1h}\n"));
    CliHarness.Result r =
        cli.run(
            "backfill",
            "etl",
            "--config",
            config.toString(),
            "--from",
            hour.toString(),
            "--to",
            hour.plus(Duration.ofMinutes(20)).toString(),
            "--here");
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).contains("older than the history kept").contains("2 firings, 0 succeeded");
    assertThat(backfilled()).isEmpty();
  }

  @Test
  void aBadRangeExits2() throws Exception {
    assertThat(backfill(hour, hour).code()).isEqualTo(2);
    CliHarness.Result many = backfill(hour, hour.plus(Duration.ofHours(2)), "--limit", "5");
    assertThat(many.code()).isEqualTo(2);
    assertThat(many.err()).contains("more than --limit 5 firings");
    assertThat(server.history.recent("_leasehold.requests", 10)).isEmpty();
  }
}
