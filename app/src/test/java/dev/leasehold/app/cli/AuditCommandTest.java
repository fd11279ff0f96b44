package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.MemoryStoreType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit}: what the steering commands record, as a table and as JSON, and its bad usage. On
 * the reference in-memory store (it keeps a journal); its broken variant keeps none.
 */
class AuditCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final CliHarness cli = new CliHarness();

  private Path config(String storeName) throws Exception {
    Path file = dir.resolve(storeName + ".yaml");
    Files.writeString(
        file,
        "node: tester\nstore:\n  type: memory\n  url: memory:"
            + storeName
            + "\njobs:\n  - name: digest\n    every: 1h\n    command: [\"true\"]\n");
    return file;
  }

  private CliHarness.Result run(Path config, String command, String... more) {
    List<String> all = new ArrayList<>(List.of(command, "--config", config.toString()));
    all.addAll(List.of(more));
    return cli.run(all.toArray(String[]::new));
  }

  @Test
  void pauseResumeResetAndTriggerAreListedNewestFirstWithWhoDidThem() throws Exception {
    Path config = config("audit-" + UUID.randomUUID());
    assertThat(run(config, "pause", "digest", "--reason", "relay down").code()).isZero();
    assertThat(run(config, "resume", "digest").code()).isZero();
    assertThat(run(config, "reset", "digest").code()).isZero();
    assertThat(run(config, "trigger", "digest", "--here").code()).isZero();

    CliHarness.Result json = run(config, "audit", "--json");
    assertThat(json.code()).as(json.err()).isZero();
    JsonNode rows = JSON.readTree(json.out());
    List<String> actions = new ArrayList<>();
    String user = System.getProperty("user.name");
    for (JsonNode row : rows) {
      actions.add(row.path("action").asText() + " " + row.path("result").asText());
      assertThat(row.path("job").asText()).isEqualTo("digest");
      assertThat(row.path("via").asText()).isEqualTo("cli");
      assertThat(row.path("user").asText()).isEqualTo(user);
      assertThat(row.path("host").asText()).isNotEmpty();
      assertThat(row.path("node").asText()).isEqualTo("tester");
      assertThat(row.path("token").isNull()).isTrue();
      assertThat(row.path("client").isNull()).isTrue();
      assertThat(row.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*\\.\\d{3}Z");
      assertThat(row.path("by").asText()).startsWith(user + "@").endsWith("(cli, node tester)");
    }
    assertThat(actions).containsExactly("trigger ok", "reset ok", "resume ok", "pause ok");
    assertThat(rows.get(3).path("detail").asText()).isEqualTo("reason: relay down");
    assertThat(rows.get(0).path("detail").asText()).contains("ran here as tester/cli");

    CliHarness.Result table = run(config, "audit", "--limit", "2");
    assertThat(table.code()).isZero();
    List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).matches("TIME +ACTION +JOB +RESULT +BY +DETAIL");
    assertThat(lines.get(1)).contains("trigger").contains("digest").contains(" ok ");
    assertThat(lines.get(2)).contains("reset");
  }

  @Test
  void aBadLimitIsOneLineNamingTheFieldExit2() throws Exception {
    Path config = config("audit-" + UUID.randomUUID());
    for (String limit : List.of("0", "1001", "many", "-3")) {
      CliHarness.Result r = run(config, "audit", "--limit", limit);
      assertThat(r.code()).as(limit).isEqualTo(2);
      assertThat(r.errLines()).as(limit).singleElement().asString().contains("--limit");
      assertThat(r.out()).isEmpty();
    }
  }

  @Test
  void aStoreWithoutAJournalSaysSoLikePauseOnAStoreWithoutPauses() throws Exception {
    String name = "audit-" + UUID.randomUUID();
    MemoryStoreType.server(name).setForgetsTheWatermark(true); // its clients keep leases only
    Path config = config(name);

    CliHarness.Result audit = run(config, "audit");
    assertThat(audit.code()).isEqualTo(1);
    assertThat(audit.errLines())
        .singleElement()
        .asString()
        .startsWith("leasehold: store type memory does not keep an audit trail");

    CliHarness.Result pause = run(config, "pause", "digest");
    assertThat(pause.code()).isEqualTo(1);
    assertThat(pause.errLines()).singleElement().asString().contains("does not keep pauses");
  }
}
