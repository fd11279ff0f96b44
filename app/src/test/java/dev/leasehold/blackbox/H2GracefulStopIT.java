package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The embedded H2 default through graceful stops, as a new user meets it: {@code run}, then SIGTERM
 * (or Ctrl-C at the terminal), then {@code history} and {@code status} at once, several times on
 * the same file. Every run the job started is in history with its outcome, {@code history} answers
 * the first time (no stale lock file to wait out), and no lease is left held.
 */
class H2GracefulStopIT {
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final int CYCLES = 3;

  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void runSigtermHistoryStatusRepeatedLosesNoRecordAndLeavesNoLease() {
    Path ledger = box.dir().resolve("ledger");
    Path config = config(ledger, "sleep 1.5", "every: 2s");
    for (int cycle = 1; cycle <= CYCLES; cycle++) {
      Daemon daemon = Daemon.start(box, "h2-a", config, 0).awaitStarted();
      int ends = ends(ledger);
      Poll.until("a run to end", LIMIT, () -> ends(ledger) >= ends + 1);
      // stop while the next run is running: the stop waits for it, then writes its history row
      // and releases its lease, all after the signal
      int starts = starts(ledger);
      Poll.until("the next run to start", LIMIT, () -> starts(ledger) >= starts + 1);

      assertThat(daemon.stop()).as("exit code after SIGTERM, cycle %d", cycle).isZero();
      assertHistoryMatchesLedgerAndNoLeaseIsHeld(config, ledger, cycle);
    }
  }

  @Test
  void ctrlCAtTheTerminalLetsTheRunningJobFinishAndRecordsIt() {
    Path ledger = box.dir().resolve("ledger");
    Path config = config(ledger, "sleep 3", "every: 5s");
    Daemon daemon = Daemon.start(box, "h2-a", config, 0).awaitStarted();
    Poll.until("a run to start", LIMIT, () -> starts(ledger) >= 1);

    // SIGINT to the daemon's whole process group, as a terminal does: the job must not get it
    assertThat(daemon.ctrlC()).isZero();

    assertThat(starts(ledger)).as("runs started").isEqualTo(ends(ledger));
    assertHistoryMatchesLedgerAndNoLeaseIsHeld(config, ledger, 1);
  }

  private Path config(Path ledger, String work, String schedule) {
    String line = Configs.LEDGER_LINE;
    String script =
        "echo \"start "
            + line
            + "\" >> \""
            + ledger
            + "\"; "
            + work
            + "; echo \"end "
            + line
            + "\" >> \""
            + ledger
            + "\"";
    String store = "type: h2\nurl: jdbc:h2:file:" + box.dir().resolve("data/quickstart") + "\n";
    return Configs.write(
        box.dir(),
        "h2-a",
        store,
        "ttl: 30s",
        "name: tick\n" + schedule + "\n" + Configs.shell(script));
  }

  /**
   * History (read right after the stop, which must succeed the first time) holds exactly the
   * firings the job started, each {@code succeeded} (every started run ended within the grace), and
   * {@code status} shows the lease released.
   */
  private void assertHistoryMatchesLedgerAndNoLeaseIsHeld(Path config, Path ledger, int cycle) {
    String history =
        Cli.run(box.dir(), "history", "--config", config.toString(), "--limit", "1000", "--json");
    List<String> rows = new ArrayList<>();
    for (JsonNode row : json(history)) {
      if (!row.get("outcome").asText().equals("succeeded")
          && !row.get("outcome").asText().equals("failed")) {
        continue; // skipped or missed: a firing no run was started for
      }
      rows.add(
          Instant.parse(row.get("fire_time").asText())
              + " "
              + row.get("fence").asLong()
              + " "
              + row.get("outcome").asText());
    }
    Ledger read = Ledger.read(ledger);
    Set<String> started =
        read.entries().stream()
            .filter(e -> e.tag().equals("start"))
            .map(e -> e.fire() + " " + e.fence() + " succeeded")
            .collect(Collectors.toSet());
    Set<String> ended =
        read.entries().stream()
            .filter(e -> e.tag().equals("end"))
            .map(e -> e.fire() + " " + e.fence() + " succeeded")
            .collect(Collectors.toSet());
    assertThat(ended).as("every run that started ended (cycle %d)", cycle).isEqualTo(started);
    assertThat(rows).as("history after cycle %d", cycle).containsExactlyInAnyOrderElementsOf(ended);

    String status = Cli.run(box.dir(), "status", "--config", config.toString(), "--json");
    for (JsonNode row : json(status)) {
      assertThat(row.get("holder").isNull())
          .as("lease of %s after cycle %d: %s", row.get("name"), cycle, row)
          .isTrue();
    }
  }

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  private static int starts(Path ledger) {
    return (int)
        Ledger.read(ledger).entries().stream().filter(e -> e.tag().equals("start")).count();
  }

  private static int ends(Path ledger) {
    return (int) Ledger.read(ledger).entries().stream().filter(e -> e.tag().equals("end")).count();
  }
}
