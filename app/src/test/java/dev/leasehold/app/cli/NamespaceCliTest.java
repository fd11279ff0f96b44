package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSelfCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three services on one (embedded H2) store, two in namespaces and one in none, all with a job
 * {@code ok}: {@code trigger}, {@code pause}, {@code status}, {@code history} and {@code validate
 * --connect} of each see only its own.
 */
class NamespaceCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final CliHarness cli = new CliHarness();
  private Path billing;
  private Path shipping;
  private Path plain;

  @BeforeEach
  void writeConfigs() throws Exception {
    billing = config("billing", "namespace: billing\n");
    shipping = config("shipping", "namespace: shipping\n");
    plain = config("plain", "");
  }

  private Path config(String node, String namespace) throws Exception {
    Path file = dir.resolve(node + ".yaml");
    Files.writeString(
        file,
        namespace
            + "node: "
            + node
            + "\nstore:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("db")
            + "\njobs:\n  - name: ok\n    every: 1h\n    command: [\"sh\", \"-c\", \"echo "
            + node
            + "\"]\n");
    return file;
  }

  private CliHarness.Result run(String command, Path config, String... more) {
    List<String> all = new ArrayList<>(List.of(command, "--config", config.toString()));
    all.addAll(List.of(more));
    CliHarness.Result result = cli.run(all.toArray(String[]::new));
    assertThat(result.code()).as(command + " " + config + ": " + result.err()).isZero();
    return result;
  }

  private List<JsonNode> history(Path config) throws Exception {
    List<JsonNode> rows = new ArrayList<>();
    JSON.readTree(run("history", config, "--json").out()).forEach(rows::add);
    return rows;
  }

  @Test
  void eachServiceSeesOnlyItsOwnRunsAndPauses() throws Exception {
    run("trigger", billing, "ok", "--here");
    run("trigger", billing, "ok", "--here");
    run("trigger", plain, "ok", "--here");

    assertThat(history(billing))
        .hasSize(2)
        .allMatch(r -> r.get("node").asText().equals("billing/cli"));
    assertThat(history(billing)).allMatch(r -> r.get("job").asText().equals("ok"));
    assertThat(history(shipping)).isEmpty();
    assertThat(history(plain))
        .singleElement()
        .matches(r -> r.get("node").asText().equals("plain/cli"));

    JsonNode billingRow = JSON.readTree(run("status", billing, "--json").out()).get(0);
    JsonNode shippingRow = JSON.readTree(run("status", shipping, "--json").out()).get(0);
    assertThat(billingRow.get("fence").asLong()).isEqualTo(2);
    assertThat(shippingRow.get("fence").asLong()).isZero();

    run("pause", shipping, "ok", "--reason", "shipping only");
    assertThat(JSON.readTree(run("status", shipping, "--json").out()).get(0).get("paused").isNull())
        .isFalse();
    for (Path other : List.of(billing, plain)) {
      assertThat(JSON.readTree(run("status", other, "--json").out()).get(0).get("paused").isNull())
          .as("paused in %s", other)
          .isTrue();
    }
    assertThat(run("resume", billing, "ok").out()).contains("was not paused");
    assertThat(run("resume", shipping, "ok").out()).contains("job 'ok' resumed");
  }

  @Test
  void theSelfCheckOfANamespaceLeavesNothingBehindInAnyNamespace() throws Exception {
    run("validate", billing, "--connect");
    for (Path config : List.of(plain, billing)) {
      PreparedConfig prepared = PreparedConfig.load(config, Map.of(), StoreModules.discover());
      try (StoreBackend backend = prepared.storeFactory().open(prepared.config().store())) {
        assertThat(backend.leaseStore().list())
            .as("the check forgot its scratch names; seen from %s", config.getFileName())
            .extracting(LeaseState::name)
            .noneMatch(StoreSelfCheck::isScratch)
            .isEmpty();
      }
    }
    // and under the namespace, in the store itself: opened without the decorator
    PreparedConfig prepared = PreparedConfig.load(billing, Map.of(), StoreModules.discover());
    try (StoreBackend raw =
        StoreModules.discover().select(prepared.config()).open(prepared.config().store())) {
      assertThat(raw.leaseStore().list())
          .extracting(LeaseState::name)
          .noneMatch(n -> n.contains("self-check"));
    }
  }
}
