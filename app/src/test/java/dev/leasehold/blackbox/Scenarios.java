package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The black-box scenarios of issues 3, 4 and 5, each run against any {@link BlackBoxStore}. Time is
 * real: the scenarios wait for things to happen in the ledger (with generous limits) and judge the
 * ledger, never a duration.
 */
final class Scenarios {
  /** Every scenario's lease: a dead or paused holder blocks its job at most this long (G3). */
  static final Duration TTL = Duration.ofSeconds(3);

  static final String LEASE = "ttl: 3s";

  /**
   * Added to the TTL for a fault window: the largest clock skew (1.5 s, the fast node claims that
   * early), a claim in flight, and a loaded machine.
   */
  static final Duration SLACK = Duration.ofSeconds(3);

  private static final Duration PAUSE = Duration.ofSeconds(6);
  private static final Duration LIMIT = Duration.ofSeconds(60);

  private Scenarios() {}

  /**
   * G1/G2/G3: three daemons with wall clocks +1.5 s, -1.5 s and 0 run a 1 s job. A holder is
   * SIGKILLed with its process group right after it wrote its line (its job still holds the lease)
   * and restarted; later a holder is SIGSTOPped for 6 s (twice the TTL) and continued. Every firing
   * runs once, fences rise, and firings are missing only within TTL + slack of a fault.
   */
  static void killPauseAndSkew(BlackBox box, BlackBoxStore store) {
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    List<Daemon> daemons = startNodes(box, store.yaml(), LEASE, job, 1.5, -1.5, 0);
    LedgerChecker checker = LedgerChecker.every(Duration.ofSeconds(1));

    Instant from = settled();
    awaitRuns(ledger, from, 5);

    Daemon killed = holderRightNow(ledger, daemons);
    Instant killedAt = Instant.now();
    killed.kill(ledger);
    checker.fault("SIGKILL " + killed, killedAt, killedAt.plus(TTL).plus(SLACK));
    sleep(TTL);
    killed.restart();
    killed.awaitStarted();
    awaitRuns(ledger, Instant.now(), 4);

    Daemon paused = holderRightNow(ledger, daemons);
    Instant pausedAt = Instant.now();
    paused.pause();
    checker.fault("SIGSTOP " + paused + " for " + PAUSE, pausedAt, pausedAt.plus(TTL).plus(SLACK));
    sleep(PAUSE);
    paused.resume();
    awaitRuns(ledger, Instant.now(), 6);

    Instant to = Instant.now().minusSeconds(3);
    Map<String, Integer> exits = stopAll(daemons);
    judge(checker.window(from, to), ledger);
    assertThat(exits)
        .as("exit codes after SIGTERM")
        .allSatisfy((node, code) -> assertThat(code).isZero());
  }

  /**
   * G5/G7: a running job whose lease is deleted behind its back (the lease row, the lease key)
   * loses it at the next renewal and its whole process tree is stopped: SIGTERM (its trap writes
   * {@code terminated}), SIGKILL after the grace. The daemon logs the loss and the history records
   * {@code lease-lost}.
   */
  static void stolenLease(BlackBox box, BlackBoxStore store) {
    Path marker = box.dir().resolve("marker");
    Instant at = Instant.now().plusSeconds(8).truncatedTo(ChronoUnit.SECONDS);
    String script =
        "echo \"started $LEASEHOLD_FIRE_TIME $$\" >> \""
            + marker
            + "\"; trap 'echo \"terminated $$\" >> \""
            + marker
            + "\"; exit 143' TERM; sleep 60 & echo \"sleep $!\" >> \""
            + marker
            + "\"; wait $!; echo \"ended $$ $?\" >> \""
            + marker
            + "\"";
    String job =
        "name: stolen\nat: \""
            + at
            + "\"\nrenew-every: 1s\nkill-grace: 2s\n"
            + Configs.shell(script);
    Daemon daemon = startNodes(box, store.yaml(), LEASE, job, 0).get(0);

    Poll.until(
        "the job to start (marker " + marker + ")", LIMIT, () -> read(marker).contains("sleep "));
    long shell = pid(marker, "started");
    long sleeper = pid(marker, "sleep");
    assertThat(alive(shell)).as("job shell %d runs", shell).isTrue();

    store.stealLease("stolen");
    // renew-every 1 s + kill-grace 2 s, plus a generous margin for a loaded machine
    Poll.until(
        "the job's process tree (sh " + shell + ", sleep " + sleeper + ") to be gone",
        Duration.ofSeconds(1 + 2 + 12),
        () -> !alive(shell) && !alive(sleeper));
    // SIGTERM reached the tree before any SIGKILL: either the shell's trap ran, or its sleep died
    // of SIGTERM (status 143) and the shell wrote that
    assertThat(read(marker))
        .as("the job got SIGTERM first")
        .containsAnyOf("terminated " + shell, "ended " + shell + " 143");
    Poll.until(
        "the daemon to log the lost lease", LIMIT, () -> daemon.logged("lease lost job=stolen"));
    Poll.until(
        "history to show lease-lost for " + at,
        LIMIT,
        () ->
            outcomes(box, daemon.config(), "stolen")
                .getOrDefault(at.toString(), "")
                .equals("lease-lost"));
    stopAll(List.of(daemon));
  }

  /**
   * G9: a job {@code every: 10s} with {@code misfire-grace: 30s}. One daemon runs a firing, every
   * daemon stops, two firings pass, one daemon starts: the latest missed firing runs exactly once
   * and the older one never.
   */
  static void catchUp(BlackBox box, BlackBoxStore store) {
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("catchup", "every: 10s\nmisfire-grace: 30s", ledger);
    Daemon first = startNodes(box, store.yaml(), LEASE, job, 0).get(0);
    awaitRuns(ledger, Instant.EPOCH, 1);
    stopAll(List.of(first));
    Instant last = Ledger.read(ledger).lastRun().fire();

    // restart 1 s after the second missed firing, so it is the latest when the scheduler starts
    Instant restartAt = last.plusSeconds(21);
    while (restartAt.isBefore(Instant.now())) {
      restartAt = restartAt.plusSeconds(10);
    }
    sleep(Duration.between(Instant.now(), restartAt));
    Instant launched = Instant.now();
    Instant latestMissed = Instant.ofEpochSecond(launched.getEpochSecond() / 10 * 10);
    Daemon second =
        Daemon.start(
            box, "bb-late", Configs.write(box.dir(), "bb-late", store.yaml(), LEASE, job), 0);
    second.awaitStarted();
    Instant started = Instant.now();
    awaitRuns(ledger, last.plusMillis(1), 1);
    sleep(Duration.ofSeconds(2));
    stopAll(List.of(second));

    Ledger result = Ledger.read(ledger);
    judge(LedgerChecker.every(Duration.ofSeconds(10)), ledger);
    List<Instant> after =
        result.runsFrom(last.plusMillis(1)).stream().map(Ledger.Entry::fire).toList();
    assertThat(Duration.between(last, latestMissed))
        .as("at least two firings were missed while every daemon was down")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(Duration.between(launched, started))
        .as("start-up took so long that a new firing came due; the catch-up cannot be judged")
        .isLessThan(Duration.ofSeconds(9));
    assertThat(after)
        .as(
            "after %s (last run before the outage): only the latest missed firing %s, once",
            last, latestMissed)
        .filteredOn(f -> !f.isAfter(started))
        .containsExactly(latestMissed);
  }

  // --- helpers --------------------------------------------------------------------------------

  /**
   * The start of an observation window once every daemon runs: a daemon's start-up catch-up claim
   * (G9) may hold the lease while a faster clock's replica claims the next firing, which the
   * watermark then refuses to the rest; so the window opens TTL + slack after the last start.
   */
  static Instant settled() {
    return Instant.now().plus(TTL).plus(SLACK);
  }

  /** Starts one daemon per skew ({@code bb-a}, {@code bb-b}, ...) and waits until all run. */
  static List<Daemon> startNodes(
      BlackBox box, String store, String lease, String job, double... skews) {
    List<Daemon> daemons = new ArrayList<>();
    for (int i = 0; i < skews.length; i++) {
      String node = "bb-" + (char) ('a' + i);
      daemons.add(
          Daemon.start(box, node, Configs.write(box.dir(), node, store, lease, job), skews[i]));
    }
    daemons.forEach(Daemon::awaitStarted);
    return daemons;
  }

  /** Waits for a new ledger line and returns the daemon that wrote it: it holds the lease now. */
  static Daemon holderRightNow(Path ledger, List<Daemon> daemons) {
    int seen = Ledger.read(ledger).runs().size();
    Ledger.Entry[] latest = new Ledger.Entry[1];
    Poll.until(
        "a new ledger line",
        LIMIT,
        () -> {
          List<Ledger.Entry> runs = Ledger.read(ledger).runs();
          latest[0] = runs.size() > seen ? runs.get(runs.size() - 1) : null;
          return latest[0] != null;
        });
    return daemons.stream()
        .filter(d -> d.node().equals(latest[0].node()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("unknown node in the ledger: " + latest[0]));
  }

  /** Waits until {@code count} runs of firings at or after {@code from} are in the ledger. */
  static void awaitRuns(Path ledger, Instant from, int count) {
    Poll.until(
        count + " runs of firings from " + from + " in " + ledger,
        LIMIT,
        () -> Ledger.read(ledger).runsFrom(from).size() >= count);
  }

  static void judge(LedgerChecker checker, Path ledger) {
    Ledger result = Ledger.read(ledger);
    LedgerChecker.Verdict verdict = checker.check(result);
    System.out.println("[blackbox] " + ledger + ": " + verdict.summary());
    verdict.assertClean(result);
  }

  /** SIGTERM to every daemon still running; their exit codes by node. */
  static Map<String, Integer> stopAll(List<Daemon> daemons) {
    Map<String, Integer> exits = new LinkedHashMap<>();
    for (Daemon d : daemons) {
      if (d.proc().isAlive()) {
        exits.put(d.node(), d.stop());
      }
    }
    return exits;
  }

  static void sleep(Duration d) {
    if (d.isNegative() || d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** {@code fire_time -> outcome} from {@code history --json}. */
  static Map<String, String> outcomes(BlackBox box, Path config, String job) {
    String json =
        Cli.run(box.dir(), "history", "--config", config.toString(), "--job", job, "--json");
    Map<String, String> out = new LinkedHashMap<>();
    try {
      for (JsonNode row : new ObjectMapper().readTree(json)) {
        out.put(
            Instant.parse(row.get("fire_time").asText()).toString(), row.get("outcome").asText());
      }
    } catch (IOException e) {
      throw new AssertionError("history --json is not JSON: " + json, e);
    }
    return out;
  }

  static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long pid(Path marker, String tag) {
    return read(marker)
        .lines()
        .filter(l -> l.startsWith(tag + " "))
        .map(l -> l.substring(l.lastIndexOf(' ') + 1))
        .mapToLong(Long::parseLong)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no '" + tag + "' line in " + marker));
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
