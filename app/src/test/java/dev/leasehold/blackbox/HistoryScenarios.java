package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * The history and its notifications against real daemons on a real SQL server: what a run said
 * reaches {@code history}, a history seeded with many thousand rows is pruned to {@code
 * store.history} while the daemons go on claiming every firing once, and a job that always fails
 * sends one notification per firing, from one of three replicas.
 */
final class HistoryScenarios {
  static final int MAX_PER_JOB = 300;
  private static final Duration LIMIT = Duration.ofSeconds(120);

  private HistoryScenarios() {}

  /**
   * Three daemons run a 1 s job that prints a line on stdout and one on stderr, and a 2 s job that
   * always fails and notifies a receiver in this test over HTTP. Before they start, the store is
   * seeded with 6000 rows of a job gone from the file, finished 60 days ago, and 4000 recent rows
   * of the running job. With {@code keep: 30d, max-per-job: 300}, the old rows go and the running
   * job keeps its newest 300 (plus what ran since the last prune), while the ledger shows every
   * firing run once; {@code history --output} shows what the last runs said; the receiver got
   * exactly one {@code failed} event for each failed firing in the history, and no other. The same
   * daemons also run the jobs of {@link GroupJitterScenario} (a group of one across replicas, a
   * jittered job), judged as there, and those of {@link OverlapScenario} ({@code overlap: replace}
   * and {@code allow}).
   */
  static void prunedWhileClaimsGoOnOutputKeptAndFailuresNotifiedOnce(
      BlackBox box, SqlTestStore store) throws Exception {
    try (Receiver receiver = new Receiver();
        ChannelReceivers phones = new ChannelReceivers()) {
      scenario(box, store, receiver, phones);
    }
  }

  private static void scenario(
      BlackBox box, SqlTestStore store, Receiver receiver, ChannelReceivers phones)
      throws Exception {
    Path ledger = box.dir().resolve("ledger");
    String job =
        "name: tick\nevery: 1s\n"
            + Configs.shell(
                "echo \""
                    + Configs.LEDGER_LINE
                    + "\" >> \""
                    + ledger
                    + "\"; echo \"tick $LEASEHOLD_FENCE\"; echo \"warned by $LEASEHOLD_NODE\" >&2");
    // 25 KB on stdout, then the one line that matters on stderr: every notice must keep it
    String failing =
        "name: checkin\nevery: 2s\n"
            + Configs.shell(
                "yes "
                    + "x".repeat(99)
                    + " | head -n 250;"
                    + " echo \"boom at $LEASEHOLD_FIRE_TIME\" >&2; exit 3")
            + "\nnotify:\n  http:\n    url: "
            + receiver.url()
            + "\n    body: '{\"event\": \"{{event}}\", \"firing\": \"{{firing}}\","
            + " \"node\": \"{{node}}\", \"output\": \"{{output}}\"}'\n"
            + phones.notifyYaml("{{job}} {{event}} {{firing}}\\n{{output}}")
            + "  on: [failed, missed, recovered]";
    String yaml = store.yaml() + "history:\n  keep: 30d\n  max-per-job: " + MAX_PER_JOB + "\n";
    // the group and jitter scenario shares these daemons and this store
    GroupJitterScenario.Jobs grouped = GroupJitterScenario.jobs(box.dir());
    // and a job bounded by start and end with an exclude window, starting once the daemons run
    GroupJitterScenario.Windowed windowed =
        GroupJitterScenario.windowed(box.dir(), Duration.ofSeconds(40));
    // and a buffer-one job whose long runs outlast the next firing
    Path buffered = box.dir().resolve("buffered-ledger");
    // and a replace job whose every run is replaced, and an allow job whose runs overlap
    Path replaced = box.dir().resolve("replaced-ledger");
    Path allowed = box.dir().resolve("allowed-ledger");
    List<String> jobs =
        new ArrayList<>(
            List.of(
                job,
                failing,
                windowed.yaml(),
                GroupJitterScenario.bufferedJob(buffered),
                OverlapScenario.replaceJob(replaced),
                OverlapScenario.allowJob(allowed)));
    jobs.addAll(grouped.yaml());
    List<Path> configs =
        List.of(
            config(box, "bb-a", yaml, jobs),
            config(box, "bb-b", yaml, jobs),
            config(box, "bb-c", yaml, jobs));
    Path configA = configs.get(0);
    List<Daemon> daemons =
        List.of(
            Daemon.start(box, "bb-a", configs.get(0), 0),
            Daemon.start(box, "bb-b", configs.get(1), 0),
            Daemon.start(box, "bb-c", configs.get(2), 0));
    daemons.forEach(Daemon::awaitStarted);
    assertThat(Instant.now())
        .as("the daemons run before the windowed job starts")
        .isBefore(windowed.start());
    Instant from = Scenarios.settled();
    // seeded once the daemons run: a later minute's prune removes the rows while claims go on
    Scenarios.sleep(Duration.between(Instant.now(), from));
    Instant now = Instant.now();
    store.seedHistory("gone", 6000, now.minus(Duration.ofDays(60)));
    store.seedHistory("tick", 4000, now.minus(Duration.ofHours(1)));
    assertThat(store.historyRows("gone")).isEqualTo(6000);
    Poll.until(
        "the seeded history to be pruned to keep 30d, max-per-job " + MAX_PER_JOB,
        LIMIT,
        () -> store.historyRows("gone") == 0 && store.historyRows("tick") <= MAX_PER_JOB + 70);
    Scenarios.awaitRuns(ledger, Instant.now(), 5);
    Scenarios.awaitRuns(grouped.jittered(), from, 5);
    Instant to = Instant.now().minusSeconds(3);
    String said =
        Cli.run(
            box.dir(),
            "history",
            "--config",
            configA.toString(),
            "--job",
            "tick",
            "--limit",
            "3",
            "--output");
    String failedSaid =
        Cli.run(
            box.dir(),
            "history",
            "--config",
            configA.toString(),
            "--job",
            "checkin",
            "--limit",
            "2",
            "--output");
    Scenarios.sleep(Duration.ofSeconds(3)); // the grouped runs in flight write their end lines
    // the windowed job's last firing (at its end) has run
    Scenarios.sleep(Duration.between(Instant.now(), windowed.end().plusSeconds(3)));
    Instant stopping = Instant.now();
    Scenarios.stopAll(daemons);
    Map<String, String> checkins = outcomes(box, configA, "checkin");
    GroupJitterScenario.judge(grouped, stopping);
    GroupJitterScenario.judge(windowed);
    GroupJitterScenario.judgeBuffered(buffered, stopping);
    OverlapScenario.judgeReplaced(replaced, stopping, outcomes(box, configA, "replaced"));
    OverlapScenario.judgeAllowed(allowed, from, to, stopping);

    Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(1)).window(from, to), ledger);
    assertThat(said.lines().filter(l -> l.startsWith("  | tick ")).count())
        .as("each of the 3 runs shown says its line:%n%s", said)
        .isEqualTo(3);
    assertThat(said).containsPattern("  \\| \\[stderr] warned by bb-[abc]");
    assertThat(failedSaid)
        .as("a failed run's kept output ends with its error line, after 25 KB of stdout")
        .containsPattern("x{99}\\n  \\| \\[stderr] boom at \\S+\\n");
    assertThat(daemons.stream().filter(d -> d.logged("history prune: ")).count())
        .as("a prune was logged")
        .isPositive();

    List<String> failed =
        checkins.entrySet().stream()
            .filter(e -> e.getValue().equals("failed"))
            .map(Map.Entry::getKey)
            .toList();
    assertThat(failed).as("failed firings of checkin").hasSizeGreaterThan(5);
    assertThat(receiver.firings())
        .as("one notification per failed firing, none twice, none for another")
        .containsExactlyInAnyOrderElementsOf(failed);
    assertThat(receiver.senders())
        .as("the replicas that sent them")
        .isSubsetOf("bb-a", "bb-b", "bb-c");
    assertThat(receiver.outputs())
        .as("the templated hook's output ends with the error line, after 25 KB of stdout")
        .allSatisfy(o -> assertThat(o).containsPattern("\\[stderr] boom at \\S+\\s*$"));
    for (Map.Entry<String, List<String>> channel :
        Map.of("ntfy", phones.ntfy(), "telegram", phones.telegram(), "email", phones.mails())
            .entrySet()) {
      assertThat(
              ChannelReceivers.firstLines(channel.getValue()).stream()
                  .map(l -> firingOf(l, channel.getKey()))
                  .toList())
          .as("%s: one message per failed firing, none twice, none for another", channel.getKey())
          .containsExactlyInAnyOrderElementsOf(failed);
      assertThat(channel.getValue())
          .as("%s: every message ends with the run's error line", channel.getKey())
          .allSatisfy(m -> assertThat(m.strip()).containsPattern("boom at \\S+$"));
    }
    assertThat(daemons)
        .as("the Telegram bot token is in no daemon's log")
        .noneMatch(d -> d.logged(ChannelReceivers.BOT_TOKEN.substring(7)));
  }

  /** The firing named by a message's first line, {@code checkin failed FIRING}. */
  private static String firingOf(String firstLine, String channel) {
    String[] words = firstLine.split(" ");
    assertThat(words)
        .as("%s message's first line: %s", channel, firstLine)
        .hasSize(3)
        .startsWith("checkin", "failed");
    return Instant.parse(words[2]).toString();
  }

  private static Path config(BlackBox box, String node, String store, List<String> jobs) {
    Path file = Configs.write(box.dir(), node, store, Scenarios.LEASE, jobs.toArray(String[]::new));
    GroupJitterScenario.withGroups(file);
    return file;
  }

  /** {@code fire_time -> outcome} of every history record of {@code job}. */
  private static Map<String, String> outcomes(BlackBox box, Path config, String job)
      throws IOException {
    String json =
        Cli.run(
            box.dir(),
            "history",
            "--config",
            config.toString(),
            "--job",
            job,
            "--limit",
            "1000",
            "--json");
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode row : new ObjectMapper().readTree(json)) {
      out.put(Instant.parse(row.get("fire_time").asText()).toString(), row.get("outcome").asText());
    }
    return out;
  }

  /** An HTTP receiver of notifications, as a family's push service would be. */
  private static final class Receiver implements AutoCloseable {
    private final HttpServer server;
    private final List<JsonNode> events = new CopyOnWriteArrayList<>();

    Receiver() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/",
          exchange -> {
            events.add(new ObjectMapper().readTree(exchange.getRequestBody()));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
          });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/alerts";
    }

    /** The firing of every event received, each as often as it came; all are "failed". */
    List<String> firings() {
      assertThat(events).allSatisfy(e -> assertThat(e.get("event").asText()).isEqualTo("failed"));
      return events.stream().map(e -> Instant.parse(e.get("firing").asText()).toString()).toList();
    }

    /** The output of every event received. */
    List<String> outputs() {
      return events.stream().map(e -> e.get("output").asText()).toList();
    }

    Set<String> senders() {
      return events.stream().map(e -> e.get("node").asText()).collect(Collectors.toSet());
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
