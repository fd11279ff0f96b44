package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status} on the machine of a daemon of the same file: the daemon answers (no store opened
 * by the command), with the very text reading the store gives; any other daemon, or none, and the
 * command reads the store.
 */
class StatusFromDaemonTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final String JOBS =
      "jobs:\n"
          + "  - name: daily\n    cron: \"0 2 * * *\"\n    zone: UTC\n    command: [\"true\"]\n"
          + "  - name: yearly\n    cron: \"0 3 1 1 *\"\n    zone: UTC\n    command: [\"true\"]\n";

  @TempDir Path dir;
  private final CliHarness cli = new CliHarness();
  private final String name = "status-" + UUID.randomUUID();
  private final MemoryStoreType.Server store = MemoryStoreType.server(name);
  private Path file;
  private Daemon daemon;
  private CompletableFuture<Integer> running;

  @BeforeEach
  void startDaemon() throws Exception {
    file = dir.resolve("gateway.yaml");
    Files.writeString(file, config(freePort(), JOBS));
    daemon = new Daemon(PreparedConfig.load(file, Map.of(), StoreModules.discover()));
    running = CompletableFuture.supplyAsync(this::runDaemon);
    Poll.until("the admin endpoint listens", LIMIT, () -> daemon.adminPort().isPresent());
  }

  @AfterEach
  void stopDaemon() throws Exception {
    if (daemon != null) {
      daemon.shutdown();
      assertThat(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    }
  }

  @Test
  void theDaemonAnswersWithWhatReadingTheStoreGivesAndNoStoreIsOpened() {
    for (boolean json : new boolean[] {false, true}) {
      String[] viaDaemon = json ? args("--json") : args();
      String[] viaStore = json ? args("--json", "--from-store") : args("--from-store");
      // a node record may be published between the two reads: the same text within a few tries
      Poll.until(
          "status " + (json ? "--json " : "") + "answered as the store reads",
          LIMIT,
          () -> {
            int opens = store.openAttempts();
            CliHarness.Result answered = cli.run(viaDaemon);
            boolean noStoreOpened = store.openAttempts() == opens;
            CliHarness.Result read = cli.run(viaStore);
            assertThat(answered.code()).isZero();
            assertThat(read.code()).isZero();
            assertThat(noStoreOpened).as("the command opened no store").isTrue();
            assertThat(store.openAttempts()).as("--from-store opens it").isEqualTo(opens + 1);
            return answered.out().equals(read.out());
          });
    }
    CliHarness.Result table = cli.run(args());
    assertThat(table.out()).contains("daily", "yearly", "nodes:");
  }

  @Test
  void aDaemonOfAnotherFileIsNotAskedForItsAnswer() throws Exception {
    // the same admin address and store, one job more: another file's status
    String port =
        Files.readString(file)
            .lines()
            .filter(l -> l.contains("listen:"))
            .findFirst()
            .orElseThrow()
            .replaceAll(".*:", "");
    Path other = dir.resolve("other.yaml");
    Files.writeString(
        other,
        config(
            Integer.parseInt(port),
            JOBS
                + "  - name: extra\n    cron: \"0 4 * * *\"\n    zone: UTC\n    command: [\"true\"]\n"));
    int opens = store.openAttempts();

    CliHarness.Result result = cli.run("status", "--config", other.toString());

    assertThat(result.code()).isZero();
    assertThat(result.out()).contains("extra");
    assertThat(store.openAttempts()).as("it read the store itself").isEqualTo(opens + 1);
  }

  @Test
  void withTheDaemonGoneTheCommandReadsTheStore() throws Exception {
    daemon.shutdown();
    assertThat(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    daemon = null;
    int opens = store.openAttempts();

    CliHarness.Result result = cli.run(args());

    assertThat(result.code()).isZero();
    assertThat(result.out()).contains("daily", "yearly");
    assertThat(store.openAttempts()).isEqualTo(opens + 1);
  }

  private String[] args(String... more) {
    String[] out = new String[3 + more.length];
    out[0] = "status";
    out[1] = "--config";
    out[2] = file.toString();
    System.arraycopy(more, 0, out, 3, more.length);
    return out;
  }

  private String config(int port, String jobs) {
    return "node: status-node\nstore:\n  type: memory\n  url: memory:"
        + name
        + "\nadmin:\n  listen: 127.0.0.1:"
        + port
        + "\n"
        + jobs;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private int runDaemon() {
    try {
      return daemon.run();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
