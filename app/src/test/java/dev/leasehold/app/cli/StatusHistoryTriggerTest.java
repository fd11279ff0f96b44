package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSelfCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code trigger}, {@code status} and {@code history} against a real (embedded H2) store. */
class StatusHistoryTriggerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private Path config;
  private final CliHarness cli = new CliHarness();

  @BeforeEach
  void writeConfig() throws Exception {
    config = dir.resolve("leasehold.yaml");
    Files.writeString(
        config,
        "node: tester\n"
            + "store:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("db")
            + "\n"
            + "  username: sa\n  password: ${DB_PASSWORD}\n"
            + "jobs:\n"
            + "  - name: ok\n    cron: \"30 6 * * *\"\n    zone: Asia/Shanghai\n"
            + "    command: [\"sh\", \"-c\", \"echo fine\"]\n"
            + "  - name: broken\n    every: 1h\n    command: [\"sh\", \"-c\","
            + " \"echo pushing; echo \\\"push failed, pw topsecret-pw\\\" >&2; exit 3\"]\n");
    cli.env("DB_PASSWORD", "topsecret-pw");
  }

  private String[] args(String command, String... more) {
    List<String> all = new ArrayList<>(List.of(command, "--config", config.toString()));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @Test
  void pingRecordsInTheStoreAndStatusListsTheChecks() throws Exception {
    String key = "scrub-ping-key-0c7f3e9a1d";
    Files.writeString(
        config,
        Files.readString(config)
            + "checks:\n  - name: nas-scrub\n    cron: \"0 3 * * SUN\"\n    grace: 6h\n"
            + "    ping-key: ${SCRUB_KEY}\n"
            + "  - name: router-backup\n    every: 1d\n    ping-key: router-key-0123456789ab\n");
    cli.env("SCRUB_KEY", key);

    CliHarness.Result ping = cli.run(args("ping", "nas-scrub"));
    assertThat(ping.code()).as(ping.err()).isZero();
    assertThat(ping.out()).startsWith("check 'nas-scrub' pinged at 20");
    CliHarness.Result fail = cli.run(args("ping", "nas-scrub", "--fail"));
    assertThat(fail.code()).as(fail.err()).isZero();
    assertThat(fail.out()).contains("pinged (fail) at");
    CliHarness.Result unknown = cli.run(args("ping", "nope"));
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.errLines())
        .singleElement()
        .asString()
        .contains("checks: unknown check 'nope'; known: nas-scrub, router-backup");

    CliHarness.Result status = cli.run(args("status", "--from-store"));
    assertThat(status.code()).as(status.err()).isZero();
    String checks = status.out().substring(status.out().indexOf("checks:"));
    assertThat(checks.lines().filter(l -> l.startsWith("nas-scrub")).findFirst().orElseThrow())
        .contains("failed", "6h");
    assertThat(checks.lines().filter(l -> l.startsWith("router-backup")).findFirst().orElseThrow())
        .contains("new", "every 24h");

    CliHarness.Result json = cli.run(args("status", "--json", "--from-store"));
    JsonNode rows = JSON.readTree(json.out());
    assertThat(rows).hasSize(4);
    assertThat(rows.get(0).has("kind")).as("a job's object is as it was").isFalse();
    assertThat(rows.get(2).get("kind").asText()).isEqualTo("check");
    assertThat(rows.get(2).get("name").asText()).isEqualTo("nas-scrub");
    assertThat(rows.get(2).get("state").asText()).isEqualTo("failed");
    assertThat(rows.get(2).get("next_deadline").asText()).endsWith("Z");
    assertThat(rows.get(3).get("last_ping").isNull()).isTrue();
    for (CliHarness.Result r : List.of(ping, fail, unknown, status, json)) {
      assertThat(r.out() + r.err()).doesNotContain(key).doesNotContain("router-key-0123456789ab");
    }
  }

  @Test
  void triggerExitsWithTheJobsOutcome() {
    CliHarness.Result ok = cli.run(args("trigger", "ok", "--here"));
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).contains("ok ").contains("on tester/cli").contains("succeeded");

    CliHarness.Result broken = cli.run(args("trigger", "broken", "--here"));
    assertThat(broken.code()).isEqualTo(1);
    assertThat(broken.errLines()).singleElement().asString().contains("'broken' failed");

    CliHarness.Result unknown = cli.run(args("trigger", "nope"));
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.errLines()).singleElement().asString().contains("unknown job 'nope'");
  }

  @Test
  void triggerExits1WhenTheLeaseIsHeldElsewhere() throws Exception {
    try (StoreBackend other = openStore()) {
      Lease held =
          other.leaseStore().acquire("ok", "other-node", Duration.ofMinutes(5)).orElseThrow();

      CliHarness.Result result = cli.run(args("trigger", "ok", "--here"));

      assertThat(result.code()).isEqualTo(1);
      assertThat(result.errLines())
          .singleElement()
          .asString()
          .contains("running elsewhere")
          .contains("other-node");
      other.leaseStore().release(held);
    }
  }

  @Test
  void aPauseShowsInStatusUntilResumeEndsIt() throws Exception {
    CliHarness.Result paused =
        cli.run(args("pause", "ok", "--reason", "mail relay down", "--stop-running"));
    assertThat(paused.code()).as(paused.err()).isZero();
    assertThat(paused.out()).contains("job 'ok' paused since").contains("mail relay down");

    JsonNode row = JSON.readTree(cli.run(args("status", "--json")).out()).get(0);
    assertThat(row.get("paused").get("reason").asText()).isEqualTo("mail relay down");
    assertThat(row.get("paused").get("by").asText()).contains("@");
    assertThat(row.get("paused").get("stop_running").asBoolean()).isTrue();
    assertThat(row.get("paused").get("since").asText()).endsWith("Z");
    assertThat(JSON.readTree(cli.run(args("status", "--json")).out()).get(1).get("paused").isNull())
        .isTrue();
    assertThat(cli.run(args("status")).out()).contains("PAUSED").contains("mail relay down");

    CliHarness.Result resumed = cli.run(args("resume", "ok", "--catch-up"));
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("job 'ok' resumed");
    row = JSON.readTree(cli.run(args("status", "--json")).out()).get(0);
    assertThat(row.get("paused").isNull()).isTrue();
    CliHarness.Result again = cli.run(args("resume", "ok"));
    assertThat(again.code()).isZero();
    assertThat(again.out()).contains("was not paused");
  }

  @Test
  void pauseRefusesBadInputWithExitTwoAndChangesNothing() throws Exception {
    CliHarness.Result unknown = cli.run(args("pause", "nope"));
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown job 'nope'");
    CliHarness.Result tooLong = cli.run(args("pause", "ok", "--reason", "x".repeat(501)));
    assertThat(tooLong.code()).isEqualTo(2);
    assertThat(tooLong.err()).contains("--reason").contains("500");
    assertThat(cli.run(args("resume", "nope")).code()).isEqualTo(2);
    JsonNode row = JSON.readTree(cli.run(args("status", "--json")).out()).get(0);
    assertThat(row.get("paused").isNull()).isTrue();
  }

  @Test
  void statusJsonHasOneObjectPerJobWithTheDocumentedFields() throws Exception {
    assertThat(cli.run(args("trigger", "ok", "--here")).code()).isZero();
    try (StoreBackend other = openStore()) {
      other.leaseStore().acquire("broken", "other-node", Duration.ofMinutes(5)).orElseThrow();

      CliHarness.Result result = cli.run(args("status", "--json"));

      assertThat(result.code()).isZero();
      JsonNode rows = JSON.readTree(result.out());
      assertThat(rows.isArray()).isTrue();
      assertThat(rows).hasSize(2);
      for (JsonNode row : rows) {
        assertThat(fieldNames(row))
            .containsExactly(
                "name",
                "schedule",
                "next_fire",
                "overlap",
                "buffered",
                "holder",
                "lease_until",
                "last_fire",
                "fence",
                "paused");
      }
      JsonNode ok = rows.get(0);
      assertThat(ok.get("name").asText()).isEqualTo("ok");
      assertThat(ok.get("schedule").asText()).isEqualTo("cron \"30 6 * * *\" Asia/Shanghai");
      assertThat(ok.get("next_fire").asText()).matches("\\d{4}-\\d\\d-\\d\\dT22:30:00\\.000Z");
      assertThat(ok.get("holder").isNull()).as("free after the trigger released it").isTrue();
      assertThat(ok.get("last_fire").isNull())
          .as("a manual run does not move the watermark")
          .isTrue();
      assertThat(ok.get("fence").asLong()).isEqualTo(1);
      JsonNode broken = rows.get(1);
      assertThat(broken.get("holder").asText()).isEqualTo("other-node");
      assertThat(broken.get("lease_until").asText()).endsWith("Z");
      assertThat(result.out()).doesNotContain("topsecret-pw");
    }
  }

  @Test
  void statusTableIsAligned() {
    CliHarness.Result result = cli.run(args("status"));

    assertThat(result.code()).isZero();
    // the jobs table, then a blank line and the nodes section (no daemon runs in this test)
    List<String> lines = result.out().lines().takeWhile(l -> !l.isEmpty()).toList();
    assertThat(lines).hasSize(3);
    assertThat(result.out())
        .contains("\nnodes:\n")
        .contains("no daemon is alive (no node record in the store)");
    assertThat(lines.get(0))
        .startsWith("NAME    SCHEDULE")
        .contains("NEXT FIRE", "HOLDER", "FENCE");
    int column = lines.get(0).indexOf("NEXT FIRE");
    assertThat(lines.get(1).charAt(column - 1)).isEqualTo(' ');
    assertThat(lines.get(1).substring(column)).matches("\\d{4}-.*");
    assertThat(lines.get(2).substring(column)).matches("\\d{4}-.*");
  }

  @Test
  void historyJsonListsExecutionsNewestFirstWithTheDocumentedFields() throws Exception {
    cli.run(args("trigger", "ok", "--here"));
    cli.run(args("trigger", "broken", "--here"));
    cli.run(args("trigger", "ok", "--here"));

    CliHarness.Result all = cli.run(args("history", "--json"));
    CliHarness.Result onlyOk = cli.run(args("history", "--json", "--job", "ok", "--limit", "1"));

    assertThat(all.code()).isZero();
    JsonNode rows = JSON.readTree(all.out());
    assertThat(rows).hasSize(3);
    assertThat(fieldNames(rows.get(0)))
        .containsExactly(
            "job",
            "fire_time",
            "node",
            "fence",
            "outcome",
            "attempt",
            "trigger",
            "started_at",
            "finished_at",
            "duration",
            "duration_ms",
            "exit_code",
            "detail",
            "output");
    assertThat(rows.get(1).get("job").asText()).isEqualTo("broken");
    assertThat(rows.get(1).get("outcome").asText()).isEqualTo("failed");
    assertThat(rows.get(1).get("exit_code").asInt()).isEqualTo(3);
    assertThat(rows.get(1).get("attempt").asInt()).isEqualTo(1);
    assertThat(rows.get(1).get("output").asText().lines())
        .containsExactlyInAnyOrder("pushing", "[stderr] push failed, pw ***");
    assertThat(rows.get(0).get("output").asText()).isEqualTo("fine");
    assertThat(rows.get(0).get("duration_ms").asLong()).isNotNegative();
    JsonNode latest = JSON.readTree(onlyOk.out());
    assertThat(latest).hasSize(1);
    assertThat(latest.get(0).get("job").asText()).isEqualTo("ok");
    assertThat(latest.get(0).get("fence").asLong()).isEqualTo(2);
    assertThat(latest.get(0).get("outcome").asText()).isEqualTo("succeeded");
    assertThat(latest.get(0).get("trigger").asText()).isEqualTo("manual");
    assertThat(latest.get(0).get("node").asText()).isEqualTo("tester/cli");
    assertThat(latest.get(0).get("fire_time").asText()).matches(".*T.*\\.\\d{3}Z");
  }

  @Test
  void historyShowsTheEndAndDurationAndWithOutputWhatEachRunSaid() {
    cli.run(args("trigger", "broken", "--here"));

    CliHarness.Result table = cli.run(args("history", "--job", "broken"));
    assertThat(table.code()).isZero();
    assertThat(table.out().lines().findFirst().orElseThrow())
        .contains("FINISHED AT", "DURATION", "EXIT CODE");
    assertThat(table.out()).doesNotContain("push failed");

    CliHarness.Result said = cli.run(args("history", "--job", "broken", "--output"));
    assertThat(said.code()).isZero();
    List<String> lines = said.out().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0))
        .matches(
            ".*T.*Z  broken  failed  node=tester/cli fence=\\d+ attempt=1 trigger=manual exit=3"
                + " finished=.*Z duration=[\\d.]+m?s");
    assertThat(lines.get(1)).isEqualTo("  detail: exit code 3");
    assertThat(lines.subList(2, 4))
        .containsExactlyInAnyOrder("  | pushing", "  | [stderr] push failed, pw ***");
    assertThat(said.out()).doesNotContain("topsecret-pw");
    assertThat(cli.run(args("history", "--output", "--json")).code()).isEqualTo(2);
  }

  @Test
  void twentyValidateConnectRunsByNewNodesLeaveNoNewScratchRows() throws Exception {
    String yaml = Files.readString(config).replace("node: tester", "node: ${NODE}");
    Files.writeString(config, yaml);
    for (int i = 0; i < 20; i++) {
      cli.env("NODE", "laptop-" + (31000 + i)); // as <hostname>-<pid> differs for every run
      assertThat(cli.run(args("validate", "--connect")).code()).isZero();
    }
    long after20 = scratchRows();
    for (int i = 20; i < 40; i++) {
      cli.env("NODE", "laptop-" + (31000 + i));
      assertThat(cli.run(args("validate", "--connect")).code()).isZero();
    }
    assertThat(after20).isLessThanOrEqualTo(2L * StoreSelfCheck.SLOTS);
    assertThat(scratchRows()).as("twenty more runs add none").isEqualTo(after20);
  }

  private long scratchRows() throws Exception {
    cli.env("NODE", "counter");
    try (StoreBackend store = openStore()) {
      return store.leaseStore().list().stream()
          .filter(s -> StoreSelfCheck.isScratch(s.name()))
          .count();
    }
  }

  @Test
  void historyBeforePagesBackByFiring() throws Exception {
    cli.run(args("trigger", "ok", "--here"));
    cli.run(args("trigger", "broken", "--here"));
    cli.run(args("trigger", "ok", "--here"));
    JsonNode first = JSON.readTree(cli.run(args("history", "--json", "--limit", "2")).out());
    assertThat(first).hasSize(2);
    String cursor = first.get(1).get("fire_time").asText();

    CliHarness.Result older =
        cli.run(args("history", "--json", "--limit", "2", "--before", cursor));
    assertThat(older.code()).isZero();
    JsonNode rest = JSON.readTree(older.out());
    assertThat(rest).hasSize(1);
    assertThat(rest.get(0).get("job").asText()).isEqualTo("ok");
    assertThat(rest.get(0).get("fence").asLong()).isEqualTo(1);
    assertThat(rest.get(0).get("fire_time").asText()).isLessThan(cursor);

    CliHarness.Result bad = cli.run(args("history", "--before", "last-tuesday"));
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.errLines()).singleElement().asString().contains("--before 'last-tuesday'");
  }

  @Test
  void historyRefusesABadLimitAsBadUsage() {
    CliHarness.Result result = cli.run(args("history", "--limit", "0"));
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.errLines()).singleElement().asString().contains("--limit");
  }

  @Test
  void statusExits1WhenTheStoreCannotBeReached() throws Exception {
    Path unreachable = dir.resolve("pg.yaml");
    Files.writeString(
        unreachable,
        "store:\n  type: postgres\n  url: jdbc:postgresql://127.0.0.1:1/none\n"
            + "jobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n");

    CliHarness.Result result = cli.run("status", "--config", unreachable.toString());

    assertThat(result.code()).isEqualTo(1);
    assertThat(result.errLines()).singleElement().asString().startsWith("leasehold:");
  }

  private StoreBackend openStore() throws Exception {
    PreparedConfig prepared =
        PreparedConfig.load(
            config,
            Map.of("DB_PASSWORD", "topsecret-pw", "NODE", "counter"),
            StoreModules.discover());
    return prepared.storeFactory().open(prepared.config().store());
  }

  private static List<String> fieldNames(JsonNode row) {
    List<String> names = new ArrayList<>();
    row.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
