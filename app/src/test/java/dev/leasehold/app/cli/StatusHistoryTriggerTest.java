package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.store.StoreBackend;
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
            + "  - name: broken\n    every: 1h\n    command: [\"sh\", \"-c\", \"exit 3\"]\n");
    cli.env("DB_PASSWORD", "topsecret-pw");
  }

  private String[] args(String command, String... more) {
    List<String> all = new ArrayList<>(List.of(command, "--config", config.toString()));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @Test
  void triggerExitsWithTheJobsOutcome() {
    CliHarness.Result ok = cli.run(args("trigger", "ok"));
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).contains("ok ").contains("on tester").contains("succeeded");

    CliHarness.Result broken = cli.run(args("trigger", "broken"));
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

      CliHarness.Result result = cli.run(args("trigger", "ok"));

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
  void statusJsonHasOneObjectPerJobWithTheDocumentedFields() throws Exception {
    assertThat(cli.run(args("trigger", "ok")).code()).isZero();
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
                "name", "schedule", "next_fire", "holder", "lease_until", "last_fire", "fence");
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
    List<String> lines = result.out().lines().toList();
    assertThat(lines).hasSize(3);
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
    cli.run(args("trigger", "ok"));
    cli.run(args("trigger", "broken"));
    cli.run(args("trigger", "ok"));

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
            "trigger",
            "started_at",
            "finished_at",
            "exit_code",
            "detail");
    assertThat(rows.get(1).get("job").asText()).isEqualTo("broken");
    assertThat(rows.get(1).get("outcome").asText()).isEqualTo("failed");
    assertThat(rows.get(1).get("exit_code").asInt()).isEqualTo(3);
    JsonNode latest = JSON.readTree(onlyOk.out());
    assertThat(latest).hasSize(1);
    assertThat(latest.get(0).get("job").asText()).isEqualTo("ok");
    assertThat(latest.get(0).get("fence").asLong()).isEqualTo(2);
    assertThat(latest.get(0).get("outcome").asText()).isEqualTo("succeeded");
    assertThat(latest.get(0).get("trigger").asText()).isEqualTo("manual");
    assertThat(latest.get(0).get("node").asText()).isEqualTo("tester");
    assertThat(latest.get(0).get("fire_time").asText()).matches(".*T.*\\.\\d{3}Z");
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
        PreparedConfig.load(config, Map.of("DB_PASSWORD", "topsecret-pw"), StoreModules.discover());
    return prepared.storeFactory().open(prepared.config().store());
  }

  private static List<String> fieldNames(JsonNode row) {
    List<String> names = new ArrayList<>();
    row.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
