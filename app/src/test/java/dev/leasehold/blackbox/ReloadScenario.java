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
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reload without a restart, black-box: the same replicas (their number is the caller's) run through
 * every check in turn, so no check starts daemons of its own. Jobs every 2 s ({@code keep}, {@code
 * gone}, {@code shift}); then the file is rewritten on every replica and each gets SIGHUP: {@code
 * gone} removed, {@code shift} every 4 s, {@code fresh} added. Then a bad file (SIGHUP) changes
 * nothing and shows on {@code /metrics} and {@code /api/status}; a file that changes the node is
 * refused by {@code POST /reload} with 422, without the token with 401; and {@code POST /reload} of
 * a good file adds {@code gone} back. Real time, judged on the ledgers (each firing at most once,
 * {@code keep} every firing once throughout) and on what the daemons answer, never on a duration.
 */
final class ReloadScenario {
  private static final Duration PERIOD = Duration.ofSeconds(2);
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final String TOKEN = "reload-scenario-token-0001";
  private static final Pattern ADMIN_PORT =
      Pattern.compile("admin endpoint on http://[^:]+:(\\d+)/");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private ReloadScenario() {}

  /** One replica: its daemon, its file and its admin port. */
  private record Replica(Daemon daemon, String node, int port) {}

  static void addRemoveChangeAndABadFile(BlackBox box, BlackBoxStore store, int replicas) {
    addRemoveChangeAndABadFile(box, store, replicas, false);
  }

  /**
   * The scenario; with {@code audit}, at its end on the same replicas, the audit trail ({@link
   * #auditTrailSaysWho}): on a store that command lines can open while the daemons run.
   */
  static void addRemoveChangeAndABadFile(
      BlackBox box, BlackBoxStore store, int replicas, boolean audit) {
    Path keep = box.dir().resolve("ledger-keep");
    Path gone = box.dir().resolve("ledger-gone");
    Path shift = box.dir().resolve("ledger-shift");
    Path fresh = box.dir().resolve("ledger-fresh");
    String keepJob = Configs.ledgerJob("keep", "every: 2s", keep);
    String goneJob = Configs.ledgerJob("gone", "every: 2s", gone);
    String shiftEvery2 = Configs.ledgerJob("shift", "every: 2s", shift);
    String shiftEvery4 = Configs.ledgerJob("shift", "every: 4s", shift);
    String freshJob = Configs.ledgerJob("fresh", "every: 2s", fresh);

    List<Replica> all = new ArrayList<>();
    List<Daemon> daemons = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      String node = "bb-" + (char) ('a' + i);
      Path file = write(box, node, node, store, keepJob, goneJob, shiftEvery2);
      daemons.add(Daemon.start(box, node, file, 0));
    }
    daemons.forEach(Daemon::awaitStarted);
    for (Daemon d : daemons) {
      all.add(new Replica(d, d.node(), adminPort(d)));
    }
    Instant from = Scenarios.settled();
    Scenarios.awaitRuns(keep, from, 2);
    Scenarios.awaitRuns(gone, from, 2);
    Scenarios.awaitRuns(shift, from, 2);

    // SIGHUP: 'gone' removed, 'shift' every 4 s, 'fresh' added
    all.forEach(r -> write(box, r.node(), r.node(), store, keepJob, shiftEvery4, freshJob));
    Instant hupSent = Instant.now();
    all.forEach(r -> r.daemon().proc().signal("HUP"));
    all.forEach(r -> awaitLogged(r, "config reloaded from", 1));
    Instant reloaded = Instant.now();
    Scenarios.awaitRuns(fresh, reloaded, 3);
    Scenarios.awaitRuns(shift, reloaded.plus(PERIOD), 3);
    assertThat(firings(fresh))
        .as("'fresh' runs no firing from before the first replica added it (%s)", hupSent)
        .isNotEmpty()
        .allSatisfy(f -> assertThat(f).isAfter(hupSent));
    assertThat(firings(gone))
        .as("'gone' fires no more after every replica removed it (%s)", reloaded)
        .noneMatch(f -> f.isAfter(reloaded));
    assertThat(firings(shift))
        .as("'shift' fires every 4 s from its next firing after the reload")
        .filteredOn(f -> f.isAfter(reloaded))
        .hasSizeGreaterThanOrEqualTo(3)
        .allSatisfy(f -> assertThat(f.getEpochSecond() % 4).isZero());
    for (Replica r : all) {
      assertThat(get(r, "/metrics"))
          .contains("leasehold_config_reloads_total{result=\"applied\"} 1.0")
          .contains("leasehold_config_reloads_total{result=\"failed\"} 0.0");
    }

    // SIGHUP with a bad file: nothing changes, one ERROR line names the file and the field
    String badFresh = "name: fresh\nevery: banana\n" + Configs.shell("true");
    all.forEach(r -> write(box, r.node(), r.node(), store, keepJob, shiftEvery4, badFresh));
    all.forEach(r -> r.daemon().proc().signal("HUP"));
    all.forEach(r -> awaitLogged(r, "config reload refused", 1));
    Instant refused = Instant.now();
    Scenarios.awaitRuns(fresh, refused, 3);
    for (Replica r : all) {
      String line = logLine(r, "config reload refused");
      assertThat(line).contains("ERROR").contains(r.node() + ".yaml").contains("jobs[2].every");
      assertThat(get(r, "/metrics"))
          .contains("leasehold_config_reloads_total{result=\"applied\"} 1.0")
          .contains("leasehold_config_reloads_total{result=\"failed\"} 1.0");
      JsonNode failure = json(get(r, "/api/status")).path("reload").path("last_failure");
      assertThat(failure.path("reason").asText()).contains("jobs[2].every");
      assertThat(failure.path("time").path("iso").asText()).isNotEmpty();
    }
    assertThat(firings(gone)).noneMatch(f -> f.isAfter(reloaded));
    assertThat(firings(shift))
        .filteredOn(f -> f.isAfter(reloaded))
        .allSatisfy(f -> assertThat(f.getEpochSecond() % 4).isZero());

    // POST /reload: without the token 401; a new node name needs a restart (422); a good file
    // applies (200) and adds 'gone' back
    Replica first = all.get(0);
    assertThat(post(first, "/reload", null).statusCode()).isEqualTo(401);
    write(box, first.node(), first.node() + "-renamed", store, keepJob, shiftEvery4, freshJob);
    HttpResponse<String> restart = post(first, "/reload", TOKEN);
    assertThat(restart.statusCode()).isEqualTo(422);
    assertThat(json(restart.body()).path("result").asText()).isEqualTo("refused");
    assertThat(json(restart.body()).path("reason").asText()).contains("node").contains("restart");
    Instant readded = Instant.now();
    for (Replica r : all) {
      write(box, r.node(), r.node(), store, keepJob, shiftEvery4, freshJob, goneJob);
      HttpResponse<String> applied = post(r, "/reload", TOKEN);
      assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
      JsonNode body = json(applied.body());
      assertThat(body.path("result").asText()).isEqualTo("applied");
      assertThat(body.path("added").toString()).isEqualTo("[\"gone\"]");
      assertThat(body.path("removed").toString()).isEqualTo("[]");
      assertThat(body.path("changed").toString()).isEqualTo("[]");
    }
    Scenarios.awaitRuns(gone, readded, 2);
    if (audit) {
      auditTrailSaysWho(box, all);
    }
    Instant to = Instant.now().minusSeconds(3);
    Map<String, Integer> exits = Scenarios.stopAll(daemons);

    Scenarios.judge(LedgerChecker.every(PERIOD).window(from, to), keep);
    for (Path ledger : List.of(gone, shift, fresh)) {
      assertThat(firings(ledger)).as("each firing in %s ran once", ledger).doesNotHaveDuplicates();
    }
    assertThat(exits).allSatisfy((node, code) -> assertThat(code).as(node).isZero());
    System.out.println(
        "[blackbox] reload on "
            + replicas
            + " replicas: keep "
            + firings(keep).size()
            + ", fresh "
            + firings(fresh).size()
            + ", shift "
            + firings(shift).size()
            + ", gone "
            + firings(gone).size()
            + " runs");
  }

  /**
   * A pause from the command line, a resume through the admin API and a trigger from the command
   * line of {@code gone}: {@code audit --json} lists each with who did it (the command line's user,
   * host and node; the admin token's kind and the client's address), and the reloads of the
   * scenario (SIGHUP as the daemons, {@code POST /reload} with and without the token).
   */
  private static void auditTrailSaysWho(BlackBox box, List<Replica> all) {
    Replica first = all.get(0);
    String config = box.dir().resolve(first.node() + ".yaml").toString();
    Cli.run(box.dir(), "pause", "--config", config, "gone", "--reason", "audit check");
    HttpResponse<String> resumed = post(all.get(all.size() - 1), "/jobs/gone/resume", TOKEN);
    assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
    Cli.run(box.dir(), "trigger", "--config", config, "gone");
    JsonNode rows =
        json(Cli.run(box.dir(), "audit", "--config", config, "--json", "--limit", "100"));

    String user = System.getProperty("user.name");
    List<String> seen = new ArrayList<>();
    for (JsonNode row : rows) {
      seen.add(
          String.join(
              " ",
              row.path("action").asText(),
              row.path("job").asText(),
              row.path("result").asText(),
              row.path("via").asText(),
              row.path("token").asText(),
              row.path("client").asText()));
    }
    assertThat(seen.subList(0, 3))
        .as("the latest entries, newest first: %s", rows)
        .containsExactly(
            "trigger gone ok cli null null",
            "resume gone ok http admin 127.0.0.1",
            "pause gone ok cli null null");
    for (int i : List.of(0, 2)) {
      JsonNode cli = rows.get(i);
      assertThat(cli.path("user").asText()).isEqualTo(user);
      assertThat(cli.path("host").asText()).isNotEmpty();
      assertThat(cli.path("node").asText()).isEqualTo(first.node());
    }
    assertThat(rows.get(2).path("detail").asText()).isEqualTo("reason: audit check");
    assertThat(rows.get(1).path("node").asText()).isEqualTo(all.get(all.size() - 1).node());
    assertThat(rows.get(1).path("by").asText())
        .isEqualTo(
            "admin token from 127.0.0.1 (http, node " + all.get(all.size() - 1).node() + ")");
    assertThat(seen)
        .as(
            "the reloads: SIGHUP on every replica twice, POST /reload without a token, refused, and applied on every replica")
        .contains(
            "reload null refused http none 127.0.0.1", "reload null refused http admin 127.0.0.1")
        .filteredOn(e -> e.startsWith("reload null ok http admin"))
        .hasSize(all.size());
    assertThat(seen).filteredOn(e -> e.startsWith("reload null ok signal")).hasSize(all.size());
    assertThat(seen)
        .filteredOn(e -> e.startsWith("reload null refused signal"))
        .hasSize(all.size());
    assertThat(rows.toString()).doesNotContain(TOKEN);
  }

  /** The replica's file: {@code node} as given, the store, 3 s leases, the admin endpoint. */
  private static Path write(
      BlackBox box, String fileName, String node, BlackBoxStore store, String... jobs) {
    Path file = Configs.write(box.dir(), fileName, store.yaml(), Scenarios.LEASE, jobs);
    try {
      String yaml = Files.readString(file).replaceFirst("(?m)^node: .*$", "node: " + node);
      yaml += "admin:\n  listen: 127.0.0.1:0\n  token: " + TOKEN + "\n";
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, yaml);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  private static int adminPort(Daemon daemon) {
    Matcher m = ADMIN_PORT.matcher(daemon.proc().output());
    if (!m.find()) {
      throw new AssertionError(daemon + " logged no admin endpoint:\n" + daemon.proc().tail(20));
    }
    return Integer.parseInt(m.group(1));
  }

  private static void awaitLogged(Replica r, String text, int count) {
    Poll.until(
        r.node() + " to log '" + text + "' " + count + " time(s)",
        LIMIT,
        () -> r.daemon().proc().output().split(Pattern.quote(text), -1).length - 1 >= count);
  }

  private static String logLine(Replica r, String text) {
    return r.daemon().proc().output().lines().filter(l -> l.contains(text)).findFirst().orElse("");
  }

  private static List<Instant> firings(Path ledger) {
    return Ledger.read(ledger).runs().stream().map(Ledger.Entry::fire).sorted().toList();
  }

  private static String get(Replica r, String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.port() + path))
            .timeout(Duration.ofSeconds(30))
            .build();
    HttpResponse<String> response = send(request);
    assertThat(response.statusCode()).as("GET " + path + ": " + response.body()).isEqualTo(200);
    return response.body();
  }

  private static HttpResponse<String> post(Replica r, String path, String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.port() + path))
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(request.build());
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }
}
