package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two services on one store (a fresh schema of the real PostgreSQL server), each one daemon in its
 * own namespace, with the same job name: both run every firing of it, each in its own ledger, and
 * {@code status} and {@code history} of each show only its own runs.
 */
class NamespaceBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void twoNamespacesWithTheSameJobOnOneStoreEachRunEveryFiring() {
    SqlTestStore store = box.closeAfter(SqlTestStore.postgres());
    Path billingLedger = box.dir().resolve("ledger-billing");
    Path shippingLedger = box.dir().resolve("ledger-shipping");
    Path billing = config("bb-billing", "billing", store, billingLedger);
    Path shipping = config("bb-shipping", "shipping", store, shippingLedger);
    List<Daemon> daemons =
        List.of(
            Daemon.start(box, "bb-billing", billing, 0),
            Daemon.start(box, "bb-shipping", shipping, 0));
    daemons.forEach(Daemon::awaitStarted);
    Instant from = Scenarios.settled();
    Scenarios.awaitRuns(billingLedger, from, 12);
    Scenarios.awaitRuns(shippingLedger, from, 12);
    Instant to = Instant.now().minusSeconds(3);

    JsonNode billingStatus =
        json(Cli.run(box.dir(), "status", "--config", billing.toString(), "--json"));
    JsonNode shippingStatus =
        json(Cli.run(box.dir(), "status", "--config", shipping.toString(), "--json"));
    Scenarios.stopAll(daemons);

    Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(1)).window(from, to), billingLedger);
    Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(1)).window(from, to), shippingLedger);
    assertThat(Ledger.read(billingLedger).runs()).allMatch(e -> e.node().equals("bb-billing"));
    assertThat(Ledger.read(shippingLedger).runs()).allMatch(e -> e.node().equals("bb-shipping"));

    for (JsonNode status : List.of(billingStatus, shippingStatus)) {
      assertThat(status).hasSize(1);
      assertThat(status.get(0).get("name").asText()).isEqualTo("tick");
      assertThat(status.get(0).get("last_fire").isNull()).isFalse();
    }
    assertThat(billingStatus.get(0).get("holder").asText("bb-billing")).isEqualTo("bb-billing");
    assertThat(shippingStatus.get(0).get("holder").asText("bb-shipping")).isEqualTo("bb-shipping");

    assertOnlyOwnHistory(billing, "bb-billing", billingLedger);
    assertOnlyOwnHistory(shipping, "bb-shipping", shippingLedger);
  }

  private void assertOnlyOwnHistory(Path config, String node, Path ledger) {
    List<JsonNode> all =
        rows(
            Cli.run(
                box.dir(), "history", "--config", config.toString(), "--json", "--limit", "1000"));
    List<JsonNode> tick = Scenarios.history(box, config, "tick");
    assertThat(all).isNotEmpty();
    assertThat(all).allMatch(r -> r.get("job").asText().equals("tick"), "only the bare job name");
    assertThat(all).allMatch(r -> r.get("node").asText().equals(node), "only " + node + "'s runs");
    assertThat(tick).allMatch(r -> r.get("node").asText().equals(node));
    assertThat(all.size())
        .as("every run of %s's ledger is in its history", node)
        .isGreaterThanOrEqualTo(Ledger.read(ledger).runs().size());
  }

  private Path config(String node, String namespace, SqlTestStore store, Path ledger) {
    Path file =
        Configs.write(
            box.dir(),
            node,
            store.yaml(),
            Scenarios.LEASE,
            Configs.ledgerJob("tick", "every: 1s", ledger));
    try {
      Files.writeString(file, "namespace: " + namespace + "\n" + Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  private static List<JsonNode> rows(String text) {
    List<JsonNode> rows = new ArrayList<>();
    json(text).forEach(rows::add);
    return rows;
  }
}
