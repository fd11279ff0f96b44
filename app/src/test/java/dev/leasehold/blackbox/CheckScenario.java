package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A heartbeat check, black-box: three daemons (clocks +1.5 s, -1.5 s, 0) share one store and watch
 * check {@code nas-scrub} (every 10 s, grace 5 s), whose notifier is a command appending each event
 * with its arrival time to a file (the receiver's ledger). The check is pinged on each replica's
 * admin endpoint in turn, then no more: one {@code missed} arrives (within period + grace + 6 s of
 * the last ping, measured and printed; asserted with a generous margin), nothing more while the
 * check stays down; then {@code leasehold ping} writes one ping straight to the store (no daemon is
 * told) and one {@code recovered} arrives. Judged on the ledger.
 */
final class CheckScenario {
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final Duration GRACE = Duration.ofSeconds(5);
  private static final String KEY = "nas-scrub-ping-key-" + "7d1e4f0a9b";
  private static final Pattern ADMIN_PORT =
      Pattern.compile("admin endpoint on http://[^:]+:(\\d+)/");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  private CheckScenario() {}

  static void aCheckPingedOnThreeReplicasIsMissedOnceAndRecoversOnce(
      BlackBox box, BlackBoxStore store) {
    Path dir = box.dir();
    Path events = dir.resolve("check-events");
    String job = "name: idle\ncron: \"0 0 1 1 *\"\n" + Configs.shell("true");
    String more =
        "admin:\n  listen: 127.0.0.1:0\n"
            + "checks:\n  - name: nas-scrub\n    every: 10s\n    grace: 5s\n    ping-key: "
            + KEY
            + "\n    notify:\n      command:\n        - sh\n        - -c\n        - "
            + Configs.quote(
                "ev=$(cat); printf '%s %s\\n' \"$(env -u LD_PRELOAD date +%s%3N)\" \"$ev\" >> \""
                    + events
                    + "\"")
            + "\n";
    List<Daemon> daemons = new ArrayList<>();
    double[] skews = {1.5, -1.5, 0};
    Path anyFile = null;
    for (int i = 0; i < skews.length; i++) {
      String node = "bb-" + (char) ('a' + i);
      Path file = Configs.write(dir, node, store.yaml(), Scenarios.LEASE, job);
      append(file, more);
      anyFile = file;
      daemons.add(Daemon.start(box, node, file, skews[i]));
    }
    daemons.forEach(Daemon::awaitStarted);
    List<Integer> ports = daemons.stream().map(CheckScenario::adminPort).toList();

    // pinged on every replica in turn, every 2 s: never late
    long lastPing = 0;
    for (int i = 0; i < 9; i++) {
      HttpResponse<String> ping = ping(ports.get(i % 3), KEY);
      assertThat(ping.statusCode()).as(ping.body()).isEqualTo(200);
      assertThat(ping.body()).doesNotContain(KEY);
      lastPing = System.currentTimeMillis();
      Scenarios.sleep(Duration.ofSeconds(2));
    }
    assertThat(ping(ports.get(0), KEY + "x").statusCode()).as("a wrong key").isEqualTo(401);
    assertThat(events(events)).as("pinged in time: nothing sent").isEmpty();

    Poll.until(
        "one missed event",
        LIMIT,
        () -> events(events).stream().anyMatch(e -> e.kind().equals("missed")));
    Event missed = events(events).get(0);
    long latency = missed.arrived() - lastPing;
    // the event's identity: the last ping before the gap; its time the ping's deadline
    assertThat(missed.json().get("id").asText()).startsWith("check:nas-scrub:missed:");
    assertThat(missed.json().get("job").asText()).isEqualTo("nas-scrub");
    assertThat(missed.json().get("check").asBoolean()).isTrue();

    // down for two more periods and graces: nothing more
    Scenarios.sleep(PERIOD.plus(GRACE).multipliedBy(2));
    assertThat(events(events)).as("not repeated while the check stays down").hasSize(1);

    // a ping from a shell, straight to the store: the replicas see it on their own
    long recoveryPing = System.currentTimeMillis();
    String pinged = Cli.run(dir, "ping", "--config", anyFile.toString(), "nas-scrub");
    assertThat(pinged).contains("check 'nas-scrub' pinged");
    Poll.until(
        "one recovered event",
        LIMIT,
        () -> events(events).stream().anyMatch(e -> e.kind().equals("recovered")));
    Scenarios.sleep(Duration.ofSeconds(6)); // a second delivery, were there one, arrives
    Scenarios.stopAll(daemons);

    List<Event> sent = events(events);
    Instant recoveredAt = Instant.parse(firstOf(sent, "recovered").json().get("firing").asText());
    System.out.println(
        "[blackbox] check: missed "
            + latency
            + " ms after the last ping (period + grace = "
            + PERIOD.plus(GRACE).toMillis()
            + " ms), recovered "
            + (firstOf(sent, "recovered").arrived() - recoveryPing)
            + " ms after the shell's ping; events "
            + sent.stream().map(Event::kind).toList());
    assertThat(sent.stream().filter(e -> e.kind().equals("recovered")))
        .as("one recovered")
        .hasSize(1);
    assertThat(
            sent.stream()
                .filter(e -> e.kind().equals("missed"))
                .filter(e -> Instant.parse(e.json().get("firing").asText()).isBefore(recoveredAt)))
        .as("one missed for the gap")
        .hasSize(1);
    assertThat(sent).as("no other event").allMatch(e -> !e.kind().equals("failed"));
    assertThat(latency)
        .as("missed within period + grace + 6 s of the last ping (+ a margin for a loaded machine)")
        .isLessThan(PERIOD.plus(GRACE).plusSeconds(6).plusSeconds(15).toMillis());
    for (Daemon d : daemons) {
      assertThat(d.proc().output()).as(d.node() + "'s log").doesNotContain(KEY);
    }
    try {
      assertThat(Files.readString(events)).doesNotContain(KEY);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  record Event(long arrived, JsonNode json) {
    String kind() {
      return json.get("event").asText();
    }
  }

  private static Event firstOf(List<Event> events, String kind) {
    return events.stream().filter(e -> e.kind().equals(kind)).findFirst().orElseThrow();
  }

  private static List<Event> events(Path file) {
    List<Event> out = new ArrayList<>();
    try {
      if (!Files.exists(file)) {
        return out;
      }
      for (String line : Files.readAllLines(file)) {
        int space = line.indexOf(' ');
        if (space > 0 && line.endsWith("}")) {
          out.add(
              new Event(
                  Long.parseLong(line.substring(0, space)),
                  JSON.readTree(line.substring(space + 1))));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static void append(Path file, String yaml) {
    try {
      Files.writeString(file, Files.readString(file) + yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static HttpResponse<String> ping(int port, String key) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ping/nas-scrub"))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + key)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int adminPort(Daemon daemon) {
    Matcher m = ADMIN_PORT.matcher(daemon.proc().output());
    if (!m.find()) {
      throw new AssertionError(daemon + " logged no admin endpoint:\n" + daemon.proc().tail(20));
    }
    return Integer.parseInt(m.group(1));
  }
}
