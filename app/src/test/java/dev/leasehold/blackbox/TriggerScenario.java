package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * {@code leasehold trigger} against three running daemons, black-box, on the daemons of another
 * scenario ({@link PauseScenario}): the job {@code poked} never fires on its own (1 January), so
 * every line of its ledger is a triggered run. While all daemons run, three requests at once run
 * three times, once each, on live daemons, each run's history row naming its daemon and the
 * request; {@code --no-wait} returns and the run still happens; {@code --here} runs in the command
 * as {@code observer/cli}. While every daemon is stopped, a request ends with exit 1 and never
 * runs, not even after the daemons return. Judged on the ledger and the history.
 */
final class TriggerScenario {
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Set<String> DAEMONS = Set.of("bb-a", "bb-b", "bb-c");

  private final BlackBox box;
  private final BlackBoxStore store;
  private final Path ledger;
  private Path config;
  private int expected;

  TriggerScenario(BlackBox box, BlackBoxStore store) {
    this.box = box;
    this.store = store;
    this.ledger = box.dir().resolve("ledger-poked");
  }

  /** The job, in every daemon's file and the command's. */
  String job() {
    return Configs.ledgerJob("poked", "cron: \"0 0 1 1 *\"", ledger);
  }

  private Path config() {
    if (config == null) {
      config =
          Configs.write(
              box.dir(),
              "trigger-observer",
              store.yaml() + "command-timeout: 10s\n",
              Scenarios.LEASE,
              job());
    }
    return config;
  }

  private Cli.Result trigger(String... more) {
    List<String> args = new ArrayList<>(List.of("trigger", "--config", config().toString()));
    args.addAll(List.of(more));
    args.add("poked");
    return Cli.result(box.dir(), args.toArray(String[]::new));
  }

  /** Every daemon runs: three requests at once, one without waiting, one here. */
  void whileAllRun() {
    List<CompletableFuture<Cli.Result>> three = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      three.add(CompletableFuture.supplyAsync(this::trigger));
    }
    for (CompletableFuture<Cli.Result> f : three) {
      Cli.Result r = f.join();
      assertThat(r.code()).as("trigger: %s", r.err()).isZero();
      assertThat(r.out()).contains("poked ").contains("succeeded").containsPattern(" on bb-[abc],");
    }
    expected = 3;
    List<Ledger.Entry> runs = Ledger.read(ledger).runs();
    assertThat(runs).as("three requests, three runs").hasSize(3);
    assertThat(runs).extracting(Ledger.Entry::node).allMatch(DAEMONS::contains);
    assertThat(runs).extracting(Ledger.Entry::fence).doesNotHaveDuplicates();
    List<JsonNode> rows = history();
    assertThat(rows).hasSize(3);
    for (JsonNode row : rows) {
      assertThat(row.get("trigger").asText()).isEqualTo("manual");
      assertThat(row.get("outcome").asText()).isEqualTo("succeeded");
      assertThat(row.get("detail").asText())
          .startsWith("triggered by request ")
          .endsWith(" from trigger-observer/cli");
      Instant fire = Instant.parse(row.get("fire_time").asText());
      assertThat(runs)
          .as("the row's node ran it")
          .anyMatch(e -> e.fire().equals(fire) && e.node().equals(row.get("node").asText()));
    }

    Cli.Result queued = trigger("--no-wait");
    assertThat(queued.code()).as(queued.err()).isZero();
    assertThat(queued.out()).contains("poked requested at").contains("request ");
    expected = 4;
    Poll.until(
        "the run of the request made with --no-wait",
        LIMIT,
        () -> Ledger.read(ledger).runs().size() >= 4);

    Cli.Result here = trigger("--here");
    assertThat(here.code()).as(here.err()).isZero();
    assertThat(here.out()).contains(" on trigger-observer/cli,");
    expected = 5;
    assertThat(Ledger.read(ledger).lastRun().node()).isEqualTo("trigger-observer/cli");
    System.out.println(
        "[blackbox] trigger: runs by "
            + Ledger.read(ledger).runs().stream()
                .map(Ledger.Entry::node)
                .collect(Collectors.joining(", ")));
  }

  /** Every daemon was stopped: the request is not taken, exit 1, and it never runs later. */
  void whileNoneRuns() {
    Cli.Result r = trigger("--timeout", "1s");
    assertThat(r.code()).as("trigger with no daemon running: %s", r.out()).isEqualTo(1);
    // their node records stay live for up to 15 s after a stop; after that none is alive
    assertThat(r.err()).containsAnyOf("no daemon took request", "no daemon is alive");
    assertThat(r.out()).isEmpty();
  }

  /** After the scenario: no run beyond those judged, and each at most once. */
  void judge() {
    List<Ledger.Entry> runs = Ledger.read(ledger).runs();
    assertThat(runs).as("the request made while no daemon ran never ran").hasSize(expected);
    assertThat(runs)
        .as("each run under a lease of its own")
        .extracting(Ledger.Entry::fence)
        .doesNotHaveDuplicates();
  }

  private List<JsonNode> history() {
    String json =
        Cli.run(box.dir(), "history", "--config", config().toString(), "--job", "poked", "--json");
    List<JsonNode> rows = new ArrayList<>();
    try {
      new ObjectMapper().readTree(json).forEach(rows::add);
    } catch (IOException e) {
      throw new AssertionError("history --json is not JSON: " + json, e);
    }
    return rows;
  }
}
