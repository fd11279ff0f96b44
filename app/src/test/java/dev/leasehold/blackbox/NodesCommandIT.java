package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code nodes} and {@code status} against two real daemons on one Redis key prefix, the second
 * with one job more: both live and the second flagged as drift; after a SIGKILL of the second it is
 * listed stale (its record is no longer refreshed, and it is kept past its expiry) and the drift
 * ends; after a SIGKILL of the first too, {@code status} says no daemon is alive. The commands run
 * in-process ({@link CliHarness}); the daemons are processes, so the kill is a real SIGKILL.
 */
class NodesCommandIT {
  /** A record is live for 15 s after its last refresh: generous room for both to turn stale. */
  private static final Duration LIMIT = Duration.ofSeconds(90);

  @RegisterExtension final BlackBox box = new BlackBox();
  private final RedisTestStore store = RedisTestStore.shared();

  @AfterEach
  void deleteKeys() {
    store.close();
  }

  @Test
  void twoDaemonsLiveThenOneKilledIsStaleThenNoDaemonIsAlive() {
    String job = "name: tick\nevery: 2s\n" + Configs.shell("true");
    String extra = "name: extra\nevery: 1h\n" + Configs.shell("true");
    Path configA = Configs.write(box.dir(), "nodes-a", store.yaml(), "ttl: 10s", job);
    Path configB = Configs.write(box.dir(), "nodes-b", store.yaml(), "ttl: 10s", job, extra);
    Daemon a = Daemon.start(box, "nodes-a", configA, 0);
    Daemon b = Daemon.start(box, "nodes-b", configB, 0);
    a.awaitStarted();
    b.awaitStarted();

    Poll.until("both daemons live", LIMIT, () -> states(configA).size() == 2);
    JsonNode both = nodes(configA);
    assertThat(state(both, "nodes-a")).isEqualTo("live");
    assertThat(state(both, "nodes-b")).isEqualTo("live");
    assertThat(row(both, "nodes-a").get("job_digest").asText())
        .as("different job sets, different digests")
        .isNotEqualTo(row(both, "nodes-b").get("job_digest").asText());
    // a tie (one replica each): the first node id's digest is the common one
    assertThat(row(both, "nodes-b").get("drift").asBoolean()).isTrue();
    assertThat(row(both, "nodes-a").get("drift").asBoolean()).isFalse();
    CliHarness.Result status = new CliHarness().run("status", "--config", configA.toString());
    assertThat(status.code()).isZero();
    assertThat(status.out()).contains("2 live: nodes-a, nodes-b").contains("config drift:");
    assertThat(status.out()).containsPattern("\\(differing: nodes-b\\)");

    b.kill(null);
    Poll.until(
        "the killed daemon listed stale",
        LIMIT,
        () -> "stale".equals(states(configA).get("nodes-b")));
    JsonNode after = nodes(configA);
    assertThat(state(after, "nodes-a")).isEqualTo("live");
    assertThat(row(after, "nodes-a").get("drift").asBoolean())
        .as("drift is between live replicas only")
        .isFalse();
    CliHarness.Result text = new CliHarness().run("nodes", "--config", configA.toString());
    assertThat(text.out()).contains("1 live: nodes-a; 1 stale: nodes-b").doesNotContain("drift:");

    a.kill(null);
    Poll.until(
        "status to say no daemon is alive",
        LIMIT,
        () ->
            new CliHarness()
                .run("status", "--config", configA.toString())
                .out()
                .contains("no daemon is alive"));
  }

  private static JsonNode nodes(Path config) {
    CliHarness.Result r = new CliHarness().run("nodes", "--config", config.toString(), "--json");
    assertThat(r.code()).as("nodes: %s", r.err()).isZero();
    try {
      return new ObjectMapper().readTree(r.out());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + r.out(), e);
    }
  }

  private static Map<String, String> states(Path config) {
    Map<String, String> out = new HashMap<>();
    nodes(config).forEach(n -> out.put(n.get("node").asText(), n.get("state").asText()));
    return out;
  }

  private static JsonNode row(JsonNode rows, String node) {
    for (JsonNode n : rows) {
      if (n.get("node").asText().equals(node)) {
        return n;
      }
    }
    throw new AssertionError(node + " not listed: " + rows);
  }

  private static String state(JsonNode rows, String node) {
    return row(rows, node).get("state").asText();
  }
}
