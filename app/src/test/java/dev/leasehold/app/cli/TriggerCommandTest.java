package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.scheduler.TriggerRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trigger} through the real entry point against the in-memory store: the request goes to a
 * daemon ({@code run} in this JVM), {@code --here} runs in the command, and the ways it ends.
 */
class TriggerCommandTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final String name = "trigger-" + UUID.randomUUID();
  private final MemoryStoreType.Server server = MemoryStoreType.server(name);
  private final CliHarness daemon = new CliHarness();
  private final CliHarness cli = new CliHarness();
  private CompletableFuture<CliHarness.Result> running;

  @AfterEach
  void stopDaemon() throws Exception {
    if (running != null) {
      daemon.sendShutdown();
      assertThat(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS).code()).isZero();
    }
  }

  private Path config(String node, String extraJobs) throws Exception {
    Path file = dir.resolve(node + ".yaml");
    Files.writeString(
        file,
        "node: "
            + node
            + "\nstore:\n  type: memory\n  url: memory:"
            + name
            + "\n"
            + "jobs:\n"
            + "  - name: ok\n    every: 1h\n    command: [\"sh\", \"-c\", \"echo fine\"]\n"
            + "  - name: broken\n    every: 1h\n    command: [\"sh\", \"-c\", \"exit 3\"]\n"
            + extraJobs);
    return file;
  }

  private void startDaemon() throws Exception {
    Path config = config("replica-1", "");
    running = CompletableFuture.supplyAsync(() -> daemon.run("run", "--config", config.toString()));
    Poll.until("the daemon's node record", LIMIT, () -> !server.leases.client().nodes().isEmpty());
  }

  private List<ExecutionRecord> queue() {
    return server.history.recent(TriggerRequest.QUEUE, 100);
  }

  @Test
  void withNoDaemonAliveItSaysSoExits1AndRequestsNothing() throws Exception {
    CliHarness.Result r = cli.run("trigger", "ok", "--config", config("ops", "").toString());

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString().contains("no daemon is alive");
    assertThat(queue()).isEmpty();
  }

  @Test
  void aLiveDaemonRunsTheRequestAndTheCommandExitsWithItsOutcome() throws Exception {
    startDaemon();
    Path ops = config("ops", "");

    CliHarness.Result ok = cli.run("trigger", "ok", "--config", ops.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("ok ").contains("on replica-1").contains("succeeded");
    assertThat(ok.err()).contains("taken by replica-1");

    CliHarness.Result broken = cli.run("trigger", "broken", "--config", ops.toString(), "--json");
    assertThat(broken.code()).isEqualTo(1);
    JsonNode row = JSON.readTree(broken.out());
    assertThat(row.get("node").asText()).isEqualTo("replica-1");
    assertThat(row.get("outcome").asText()).isEqualTo("failed");
    assertThat(row.get("trigger").asText()).isEqualTo("manual");
    assertThat(row.get("detail").asText())
        .startsWith("triggered by request ")
        .contains("from ops/cli");
    assertThat(broken.err()).contains("'broken' failed");

    List<ExecutionRecord> runs = server.history.recent("ok", 10);
    assertThat(runs)
        .singleElement()
        .satisfies(
            run -> {
              assertThat(run.trigger()).isEqualTo(TriggerKind.MANUAL);
              assertThat(run.node()).isEqualTo("replica-1");
              assertThat(run.detail()).contains("from ops/cli");
            });
    assertThat(queue())
        .extracting(ExecutionRecord::outcome)
        .containsOnly(Outcome.REQUESTED, Outcome.TAKEN)
        .hasSize(4);
  }

  @Test
  void noWaitReturnsAtOnceAndTheDaemonStillRunsIt() throws Exception {
    startDaemon();
    CliHarness.Result r =
        cli.run("trigger", "ok", "--no-wait", "--json", "--config", config("ops", "").toString());

    assertThat(r.code()).as(r.err()).isZero();
    JsonNode request = JSON.readTree(r.out());
    assertThat(request.get("job").asText()).isEqualTo("ok");
    assertThat(request.get("live").get(0).asText()).isEqualTo("replica-1");
    Poll.until("the run's row", LIMIT, () -> !server.history.recent("ok", 10).isEmpty());
    assertThat(server.history.recent("ok", 10).get(0).detail())
        .contains(request.get("request").asText());
  }

  @Test
  void aRequestNoDaemonCanTakeEndsAfterTheTimeoutWithExit1() throws Exception {
    startDaemon();
    // the command's file has a job the daemon's file does not
    Path ops = config("ops", "  - name: newer\n    every: 1h\n    command: [\"true\"]\n");

    CliHarness.Result r =
        cli.run("trigger", "newer", "--timeout", "1s", "--config", ops.toString());

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .contains("no daemon took request")
        .contains("within 1s")
        .contains("replica-1");
    assertThat(server.history.recent("newer", 10)).isEmpty();
  }

  @Test
  void hereRunsInTheCommandUnderANodeNameOfItsOwnWithoutADaemon() throws Exception {
    CliHarness.Result r =
        cli.run("trigger", "ok", "--here", "--config", config("replica-1", "").toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("on replica-1/cli");
    assertThat(server.history.recent("ok", 10))
        .singleElement()
        .extracting(ExecutionRecord::node)
        .isEqualTo("replica-1/cli");
    assertThat(queue()).isEmpty();
  }

  @Test
  void badOptionsExit2AndRequestNothing() throws Exception {
    String ops = config("ops", "").toString();
    assertThat(cli.run("trigger", "ok", "--timeout", "soon", "--config", ops).code()).isEqualTo(2);
    assertThat(cli.run("trigger", "ok", "--timeout", "0s", "--config", ops).code()).isEqualTo(2);
    assertThat(cli.run("trigger", "ok", "--here", "--no-wait", "--config", ops).code())
        .isEqualTo(2);
    CliHarness.Result unknown = cli.run("trigger", "nope", "--config", ops);
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown job 'nope'");
    assertThat(queue()).isEmpty();
  }
}
