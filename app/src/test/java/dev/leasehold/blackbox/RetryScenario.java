package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Retries and notifications, black-box: three daemons (clocks +1.5 s, -1.5 s, 0) share one store.
 * Job {@code flaky} (every minute, 3 attempts, backoff 6 s) keeps a counter in a shared file and
 * fails its first two runs; the daemon that ran the first, failed attempt is SIGKILLed as soon as
 * it logged the retry it computed (after writing the row), 6 s before the retry is due. Job {@code
 * doomed} (every 30 s, 2 attempts, backoff 1 s) always fails. Both notify a command that appends
 * each event to a file (the receiver's ledger). Once that first kill is done, the next delivery
 * hangs instead (the command keeps it and waits for its daemon to die): the daemon sending it, the
 * one that wrote the firing's last row, is SIGKILLed, and a surviving daemon must deliver that
 * event. Judged on the history and the ledger: exactly one event per finally failed firing.
 */
final class RetryScenario {
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  private RetryScenario() {}

  static void failedRunsAreRetriedOnceOnAnyReplicaAndNotifiedOnce(
      BlackBox box, BlackBoxStore store) {
    Path dir = box.dir();
    Path counter = dir.resolve("counter");
    Path events = dir.resolve("events");
    Path runs = dir.resolve("runs");
    Path arm = dir.resolve("arm");
    Path held = dir.resolve("held");
    // once armed, the first delivery keeps its event and waits for its daemon to die, unsent
    String deliver =
        "ev=$(cat); if [ -e \""
            + arm
            + "\" ] && mkdir \""
            + held
            + "\" 2>/dev/null; then printf '%s\\n' \"$ev\" > \""
            + held
            + "/event\"; echo \"$PPID\" > \""
            + held
            + "/pid.tmp\"; mv \""
            + held
            + "/pid.tmp\" \""
            + held
            + "/pid\"; while kill -0 \"$PPID\" 2>/dev/null; do sleep 0.2; done; exit 1; fi;"
            + " printf '%s\\n' \"$ev\" >> \""
            + events
            + "\"";
    String notify =
        "notify:\n  command:\n    - sh\n    - -c\n    - "
            + Configs.quote(deliver)
            + "\n  on: [failed, recovered]";
    String flaky =
        "name: flaky\nevery: 1m\nretry: {attempts: 3, backoff: 6s, max-backoff: 12s}\n"
            + Configs.shell(
                "n=$(cat \""
                    + counter
                    + "\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \""
                    + counter
                    + "\"; echo \"$LEASEHOLD_NODE $n\" >> \""
                    + runs
                    + "\"; [ $n -ge 3 ]")
            + "\n"
            + notify;
    String doomed =
        "name: doomed\nevery: 30s\nretry: {attempts: 2, backoff: 1s}\n"
            + Configs.shell("echo \"no luck on $LEASEHOLD_NODE\" >&2; exit 4")
            + "\n"
            + notify;
    ChainAndBackfillScenario chains = new ChainAndBackfillScenario(box);
    String[] jobs =
        Stream.concat(Stream.of(flaky, doomed), chains.jobs().stream()).toArray(String[]::new);
    List<Daemon> daemons = new ArrayList<>();
    double[] skews = {1.5, -1.5, 0};
    for (int i = 0; i < skews.length; i++) {
      String node = "bb-" + (char) ('a' + i);
      Path file = Configs.write(dir, node, store.yaml(), Scenarios.LEASE, jobs);
      daemons.add(Daemon.start(box, node, file, skews[i]));
    }
    daemons.forEach(Daemon::awaitStarted);
    // the history is read with a config of its own: the daemons' 1 s store timeout (from their
    // 3 s ttl) is too short for a command's first connection on a loaded machine
    Path config =
        Configs.write(dir, "reader", store.yaml() + "command-timeout: 5s\n", Scenarios.LEASE, jobs);

    // the first attempt of flaky fails: its daemon is killed once it has recorded the failure
    // (it logs the retry it computed right after writing the row), before the retry is due
    String[] first = new String[1];
    Poll.until(
        "flaky's first attempt in " + runs,
        LIMIT,
        () -> {
          first[0] = lines(runs).stream().filter(l -> l.endsWith(" 1")).findFirst().orElse(null);
          return first[0] != null;
        });
    String killed = first[0].substring(0, first[0].indexOf(' '));
    Daemon victim = daemons.stream().filter(d -> d.node().equals(killed)).findFirst().orElseThrow();
    Poll.until(
        killed + " to record the failure and compute the retry",
        LIMIT,
        () -> victim.logged("retry job=flaky"));
    victim.kill(null);

    Poll.until("flaky's third attempt", LIMIT, () -> lines(runs).size() >= 3);
    String firing =
        rowsSurely(box, config, "flaky").stream()
            .filter(r -> r.get("attempt").asInt() == 1 && r.get("node").asText().equals(killed))
            .map(r -> r.get("fire_time").asText())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no first attempt of " + killed));
    Poll.until(
        "flaky's third attempt recorded",
        LIMIT,
        () -> ofFiring(rowsOrEmpty(box, config, "flaky"), firing).size() >= 3);
    // flaky's firing is settled; the next delivery (of doomed) hangs: its sender, the replica
    // that wrote the firing's last row, is killed after writing it and before the event arrives
    touch(arm);
    Poll.until("a delivery to hang", LIMIT, () -> Files.exists(held.resolve("pid")));
    long pid = Long.parseLong(lines(held.resolve("pid")).get(0).strip());
    JsonNode hung = json(lines(held.resolve("event")).get(0));
    Daemon sender =
        daemons.stream()
            .filter(d -> d.proc().pid() == pid)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no daemon has pid " + pid));
    assertThat(sender.node())
        .as("the replica that ran the last attempt sends its event")
        .isEqualTo(hung.get("node").asText());
    assertThat(sender).as("a second daemon, still alive").isNotSameAs(victim);
    sender.kill(null);
    String hungId = hung.get("id").asText();
    Poll.until(
        "the hung event " + hungId + " delivered by a surviving replica",
        LIMIT,
        () -> events(events).stream().anyMatch(e -> e.get("id").asText().equals(hungId)));

    // doomed: three firings, each with its two attempts written (the later one settles meanwhile)
    Poll.until(
        "three firings of doomed with both attempts",
        LIMIT,
        () -> {
          Map<String, Long> byFiring = attemptsByFiring(rowsOrEmpty(box, config, "doomed"));
          return byFiring.values().stream().filter(n -> n >= 2).count() >= 3;
        });
    Scenarios.sleep(Duration.ofSeconds(12)); // a notification in flight, or handed over, arrives
    // on the daemon still alive: the chains' children so far, and two backfills of etl
    chains.awaitChildren(config);
    chains.backfill(config);
    Scenarios.stopAll(daemons);
    chains.judge(config);

    List<JsonNode> tries = ofFiring(rowsSurely(box, config, "flaky"), firing);
    tries.sort((a, b) -> a.get("attempt").asInt() - b.get("attempt").asInt());
    assertThat(tries).extracting(r -> r.get("attempt").asInt()).containsExactly(1, 2, 3);
    assertThat(tries)
        .extracting(r -> r.get("outcome").asText())
        .containsExactly("failed", "failed", "succeeded");
    assertThat(tries.get(1).get("fence").asLong())
        .isGreaterThan(tries.get(0).get("fence").asLong());
    assertThat(tries.get(2).get("fence").asLong())
        .isGreaterThan(tries.get(1).get("fence").asLong());
    assertThat(tries.get(1).get("node").asText())
        .as("the retry ran on a replica still alive")
        .isNotEqualTo(killed);

    List<JsonNode> doomedRows = rowsSurely(box, config, "doomed");
    Map<String, Long> byFiring = attemptsByFiring(doomedRows);
    List<String> finished =
        byFiring.entrySet().stream()
            .filter(e -> e.getValue() >= 2)
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    assertThat(byFiring.values())
        .as("no firing of doomed ran more than twice")
        .allMatch(n -> n <= 2);

    List<JsonNode> sent = events(events);
    System.out.println(
        "[blackbox] retries: flaky "
            + tries.stream()
                .map(r -> r.get("attempt") + "@" + r.get("node").asText() + "#" + r.get("fence"))
                .toList()
            + " (killed "
            + killed
            + "), doomed firings "
            + byFiring
            + ", events "
            + sent.size());
    assertThat(sent)
        .as("no notification for flaky: its failures were retried and it succeeded")
        .noneMatch(e -> e.get("job").asText().equals("flaky"));
    List<String> doomedEvents =
        sent.stream()
            .filter(e -> e.get("job").asText().equals("doomed"))
            .map(
                e ->
                    e.get("firing").asText()
                        + " "
                        + e.get("event").asText()
                        + " #"
                        + e.get("attempt"))
            .toList();
    assertThat(doomedEvents).as("one event per finally failed firing").doesNotHaveDuplicates();
    for (String f : finished) {
      assertThat(doomedEvents)
          .as("doomed's firing %s notified once, by its last attempt", f)
          .containsOnlyOnce(f + " failed #2");
    }
    assertThat(doomedEvents).as("no event for a retried attempt").noneMatch(e -> e.endsWith("#1"));
    assertThat(sent)
        .as("the event whose sender was killed (%s, of %s), delivered once", hungId, sender)
        .filteredOn(e -> e.get("id").asText().equals(hungId))
        .hasSize(1)
        .allMatch(e -> e.equals(hung));
    assertThat(sent)
        .extracting(e -> e.get("id").asText())
        .as("no event delivered twice (no sender died after delivering)")
        .doesNotHaveDuplicates();
  }

  private static List<JsonNode> ofFiring(List<JsonNode> rows, String firing) {
    return new ArrayList<>(
        rows.stream().filter(r -> r.get("fire_time").asText().equals(firing)).toList());
  }

  private static Map<String, Long> attemptsByFiring(List<JsonNode> rows) {
    return rows.stream()
        .filter(r -> r.get("trigger").asText().equals("scheduled"))
        .filter(r -> !r.get("outcome").asText().equals("missed"))
        .collect(Collectors.groupingBy(r -> r.get("fire_time").asText(), Collectors.counting()));
  }

  /** The rows, asking again while the command cannot reach the store (a loaded machine). */
  static List<JsonNode> rowsSurely(BlackBox box, Path config, String job) {
    List<List<JsonNode>> read = new ArrayList<>();
    Poll.until(
        "history of " + job,
        LIMIT,
        () -> {
          try {
            read.add(rows(box, config, job));
            return true;
          } catch (AssertionError e) {
            System.out.println("[blackbox] history failed, asking again: " + e.getMessage());
            return false;
          }
        });
    return read.get(0);
  }

  /** The rows, or none when the command could not reach the store this time (a loaded machine). */
  private static List<JsonNode> rowsOrEmpty(BlackBox box, Path config, String job) {
    try {
      return rows(box, config, job);
    } catch (AssertionError e) {
      System.out.println("[blackbox] history failed, asking again: " + e.getMessage());
      return List.of();
    }
  }

  private static List<JsonNode> rows(BlackBox box, Path config, String job) {
    String json =
        Cli.run(box.dir(), "history", "--config", config.toString(), "--job", job, "--json");
    List<JsonNode> rows = new ArrayList<>();
    try {
      JSON.readTree(json).forEach(rows::add);
    } catch (IOException e) {
      throw new AssertionError("history --json is not JSON: " + json, e);
    }
    return rows;
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  private static void touch(Path file) {
    try {
      Files.writeString(file, "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The events the notifier command appended, one JSON object per line. */
  private static List<JsonNode> events(Path file) {
    List<JsonNode> out = new ArrayList<>();
    try {
      if (!Files.exists(file)) {
        return out;
      }
      for (String line : Files.readAllLines(file)) {
        if (!line.isBlank()) {
          out.add(JSON.readTree(line));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
