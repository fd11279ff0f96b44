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
import java.util.function.BooleanSupplier;

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
   * and restarted; later a holder is SIGSTOPped for 6 s (twice the TTL) and continued; last the
   * fast replica (+1.5 s) is stopped with SIGTERM and started again. Every firing runs once, fences
   * rise, and firings are missing only within TTL + slack of the kill and the pause: none around
   * the restart, which decides its catch-up on the store's clock (firings come due on it).
   */
  static void killPauseAndSkew(BlackBox box, BlackBoxStore store) {
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    List<Daemon> daemons = startNodes(box, store.yaml(), LEASE, job, SKEWS);
    KillAndPause faults = KillAndPause.from(settled(), ledger, store);
    faults.run(daemons, () -> true);
    faults.judge(stopAll(daemons));
  }

  /** The clocks of the three daemons of {@link #killPauseAndSkew}. */
  static final double[] SKEWS = {1.5, -1.5, 0};

  /**
   * The faults of {@link #killPauseAndSkew} on daemons that run {@code tick} ({@link
   * Configs#ledgerJob}, {@code every: 1s}) into {@code ledger}, maybe among other jobs; the window
   * opens at {@code from}. Other scenarios share these daemons ({@link PauseScenario}): they get a
   * moment before each fault to keep their own firings away from it.
   */
  static final class KillAndPause {
    private final Instant from;
    private final Path ledger;
    private final BlackBoxStore store;
    private final LedgerChecker checker = LedgerChecker.every(Duration.ofSeconds(1));
    private Instant to;

    private KillAndPause(Instant from, Path ledger, BlackBoxStore store) {
      this.from = from;
      this.ledger = ledger;
      this.store = store;
    }

    static KillAndPause from(Instant from, Path ledger, BlackBoxStore store) {
      return new KillAndPause(from, ledger, store);
    }

    /** Kills and restarts a holder, then stops and continues one, each when {@code quiet}. */
    void run(List<Daemon> daemons, BooleanSupplier quiet) {
      awaitRuns(ledger, from, 5);

      Daemon killed = holderWhen(daemons, quiet);
      Instant killedAt = Instant.now();
      killed.kill(ledger);
      checker.fault("SIGKILL " + killed, killedAt, killedAt.plus(TTL).plus(SLACK));
      sleep(TTL);
      killed.restart();
      killed.awaitStarted();
      awaitRuns(ledger, Instant.now(), 4);

      Daemon paused = holderWhen(daemons, quiet);
      Instant pausedAt = Instant.now();
      paused.pause();
      checker.fault(
          "SIGSTOP " + paused + " for " + PAUSE, pausedAt, pausedAt.plus(TTL).plus(SLACK));
      sleep(PAUSE);
      paused.resume();
      awaitRuns(ledger, Instant.now(), 6);

      // the fast replica restarts (SIGTERM, start): no fault window, so no firing may be missed
      // around it (at start it decides its catch-up on the store's clock, not its own)
      Daemon fast = daemons.get(0);
      while (!quiet.getAsBoolean()) {
        sleep(Duration.ofMillis(100));
      }
      assertThat(fast.stop()).as("exit code of %s after SIGTERM", fast).isZero();
      sleep(TTL);
      Instant restartedAt = Instant.now();
      fast.restart();
      fast.awaitStarted();
      if (!store.firesOnItsClock()) {
        // on its own clock, starting 1.5 s ahead, it may coalesce past a firing the -1.5 s one has
        // not reached yet (beyond the 2 s skew allowance)
        checker.fault("restart of " + fast, restartedAt, Instant.now().plus(SLACK));
      }
      awaitRuns(ledger, Instant.now(), 6);
      to = Instant.now().minusSeconds(3);
    }

    /** The writer of the first new ledger line written while {@code quiet}: it holds the lease. */
    private Daemon holderWhen(List<Daemon> daemons, BooleanSupplier quiet) {
      Daemon holder = holderRightNow(ledger, daemons);
      while (!quiet.getAsBoolean()) {
        holder = holderRightNow(ledger, daemons);
      }
      return holder;
    }

    /** Judges the ledger once the daemons were stopped with SIGTERM ({@code exits}). */
    void judge(Map<String, Integer> exits) {
      Scenarios.judge(checker.window(from, to), ledger);
      assertThat(exits)
          .as("exit codes after SIGTERM")
          .allSatisfy((node, code) -> assertThat(code).isZero());
    }
  }

  /**
   * G5/G7: a running job whose lease is deleted behind its back (the lease row, the lease key)
   * loses it at the next renewal and its whole process tree is stopped: SIGTERM (its trap writes
   * {@code terminated}), SIGKILL after the grace. The daemon logs the loss and the history records
   * {@code lease-lost}.
   */
  static void stolenLease(BlackBox box, BlackBoxStore store) {
    Path marker = box.dir().resolve("marker");
    // far enough ahead for a start on a loaded machine (up to about 20 s seen): a one-shot instant
    // before the daemon first registers the job is never run, by design
    Instant at = Instant.now().plusSeconds(25).truncatedTo(ChronoUnit.SECONDS);
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
   * A job never outlives its lease, even when its daemon stalls or dies: three daemons run a job
   * {@code every: 2s} that lasts 12 s (four TTLs: renewals keep its lease) and writes {@code start}
   * and {@code end} lines with its fence (its TERM trap writes {@code end} too). First the JVM of
   * the replica running it is SIGSTOPped alone (its job runs in a session of its own) for 8 s, then
   * continued; later the replica running it is SIGKILLed with its whole process group and not
   * restarted. Both times the run's supervisor must stop the job at the lease's deadline before
   * another replica's run starts: no two runs overlap (judged by the order of the ledger's lines,
   * with no {@code killed} line to excuse anything), fences rise, and the paused replica's history
   * row says the supervisor stopped it.
   */
  static void aJobNeverOutlivesItsLease(BlackBox box, BlackBoxStore store) {
    Path ledger = box.dir().resolve("ledger");
    String to = "\" >> \"" + ledger + "\"";
    String script =
        "echo \"start "
            + Configs.LEDGER_LINE
            + to
            + "; trap 'echo \"end "
            + Configs.LEDGER_LINE
            + to
            + "; exit 143' TERM; sleep 12 & wait $!; echo \"end "
            + Configs.LEDGER_LINE
            + to;
    String job = "name: long\nevery: 2s\nrenew-every: 1s\nkill-grace: 2s\n" + Configs.shell(script);
    List<Daemon> daemons = startNodes(box, store.yaml(), LEASE, job, 0, 0, 0);
    LedgerChecker checker = LedgerChecker.every(Duration.ofSeconds(2)).noOverlap();

    Ledger.Entry stalled = runningForAWhile(ledger);
    Daemon paused = daemonOf(stalled, daemons);
    paused.pause();
    sleep(Duration.ofSeconds(8)); // TTL 3 s + kill-grace 2 s + a claim by another replica
    paused.resume();
    awaitStartAfter(ledger, stalled);

    Ledger.Entry orphaned = runningForAWhile(ledger);
    Daemon killed = daemonOf(orphaned, daemons);
    killed.kill(null); // no "killed" line: the job must end by itself
    awaitStartAfter(ledger, orphaned);
    List<Daemon> alive = daemons.stream().filter(d -> d != killed).toList();
    assertThat(stopAll(alive)).allSatisfy((node, code) -> assertThat(code).isZero());

    judge(checker, ledger);
    Ledger result = Ledger.read(ledger);
    for (Ledger.Entry run : List.of(stalled, orphaned)) {
      assertThat(result.entries())
          .as("the run of %s on %s ended (its end line)", run.fire(), run.node())
          .anyMatch(
              e ->
                  e.tag().equals("end")
                      && e.fire().equals(run.fire())
                      && e.node().equals(run.node()));
    }
    // a `history` that cannot reach the shared server (busy, restarted by another test) is asked
    // again
    Poll.until(
        "history to show the supervisor's stop of " + stalled.fire() + " on " + paused.node(),
        LIMIT,
        () ->
            historyOrEmpty(box, alive.get(0).config(), "long").stream()
                .anyMatch(
                    row ->
                        row.get("node").asText().equals(paused.node())
                            && Instant.parse(row.get("fire_time").asText()).equals(stalled.fire())
                            && row.get("outcome").asText().equals("lease-lost")
                            && row.get("detail")
                                .asText()
                                .contains("stopped by its supervisor at the lease deadline")));
  }

  /**
   * A deleted lease row does not wedge a job: three daemons run {@code tick} ({@code every: 1s})
   * until each has run it; then its lease record is deleted between two runs, as a ShedLock user
   * unlocks a job. The job runs on: within a few firings, and later on every replica, with fences
   * still rising across the delete (the store raises the fence above the highest known instead of
   * giving fence 1 again); the claiming replica logs what happened.
   */
  static void aDeletedLeaseRecordDoesNotWedgeTheJob(BlackBox box, BlackBoxStore store) {
    aDeletedLeaseRecordDoesNotWedgeTheJob(box, store, false);
  }

  /**
   * {@link #aDeletedLeaseRecordDoesNotWedgeTheJob(BlackBox, BlackBoxStore)}, and with {@code
   * grouped} the jobs of {@link GroupJitterScenario} on the same three daemons (unskewed, as that
   * scenario needs), judged as there once the daemons are stopped. Only the lease record of {@code
   * tick} is deleted; the grouped and jittered jobs have records of their own.
   */
  static void aDeletedLeaseRecordDoesNotWedgeTheJob(
      BlackBox box, BlackBoxStore store, boolean grouped) {
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    GroupJitterScenario.Jobs group = grouped ? GroupJitterScenario.jobs(box.dir()) : null;
    List<Daemon> daemons = new ArrayList<>();
    for (String node : List.of("bb-a", "bb-b", "bb-c")) {
      List<String> jobs = new ArrayList<>(List.of(job));
      if (group != null) {
        jobs.addAll(group.yaml());
      }
      Path file = Configs.write(box.dir(), node, store.yaml(), LEASE, jobs.toArray(String[]::new));
      if (group != null) {
        GroupJitterScenario.withGroups(file);
      }
      daemons.add(Daemon.start(box, node, file, 0));
    }
    daemons.forEach(Daemon::awaitStarted);
    Instant from = settled();
    Poll.until(
        "every replica to have run tick",
        LIMIT,
        () -> nodesFrom(ledger, from).size() == daemons.size());
    long highest =
        Ledger.read(ledger).runs().stream().mapToLong(Ledger.Entry::fence).max().orElseThrow();

    Instant deletedAt = Instant.now();
    store.deleteLeaseRecord("tick");
    Poll.until(
        "tick to run on every replica after its lease record was deleted",
        LIMIT,
        () -> nodesFrom(ledger, deletedAt.plusSeconds(1)).size() == daemons.size());
    Instant to = Instant.now().minusSeconds(2);
    Instant stopping = null;
    if (group != null) {
      awaitRuns(group.jittered(), from, 5);
      sleep(Duration.ofSeconds(3)); // the grouped runs in flight write their end lines
      stopping = Instant.now();
    }
    stopAll(daemons);
    if (group != null) {
      GroupJitterScenario.judge(group, stopping);
    }

    // every firing runs, but for the one or two around the delete (a claim racing with it)
    judge(
        LedgerChecker.every(Duration.ofSeconds(1))
            .window(from, to)
            .fault("lease record deleted", deletedAt.minusSeconds(1), deletedAt.plusSeconds(2)),
        ledger);
    assertThat(Ledger.read(ledger).runsFrom(deletedAt.plusSeconds(1)))
        .as("runs after the delete have fences above the %d given before it", highest)
        .allSatisfy(e -> assertThat(e.fence()).isGreaterThan(highest));
    assertThat(daemons)
        .as("a replica logged that it raised the fence")
        .anyMatch(
            d ->
                d.logged("the lease row of tick was deleted or reset")
                    || d.logged("the lease record of tick was deleted by hand"));
  }

  private static java.util.Set<String> nodesFrom(Path ledger, Instant from) {
    return Ledger.read(ledger).runsFrom(from).stream()
        .map(Ledger.Entry::node)
        .collect(java.util.stream.Collectors.toSet());
  }

  /** The latest run, once it has run for 1.5 s without an end line: renewals have happened. */
  private static Ledger.Entry runningForAWhile(Path ledger) {
    Ledger.Entry[] open = new Ledger.Entry[1];
    Poll.until(
        "a run that started and has not ended in " + ledger,
        LIMIT,
        () -> {
          Ledger now = Ledger.read(ledger);
          Ledger.Entry last = now.lastRun();
          open[0] =
              last != null
                      && now.entries().stream()
                          .noneMatch(
                              e ->
                                  e.tag().equals("end")
                                      && e.fire().equals(last.fire())
                                      && e.node().equals(last.node()))
                  ? last
                  : null;
          return open[0] != null;
        });
    sleep(Duration.ofMillis(1500));
    return open[0];
  }

  private static Daemon daemonOf(Ledger.Entry run, List<Daemon> daemons) {
    return daemons.stream()
        .filter(d -> d.node().equals(run.node()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("unknown node in the ledger: " + run));
  }

  /** Waits until a run of a later firing than {@code run} has started. */
  private static void awaitStartAfter(Path ledger, Ledger.Entry run) {
    Poll.until(
        "a run of a firing after " + run.fire() + " in " + ledger,
        LIMIT,
        () -> Ledger.read(ledger).runsFrom(run.fire().plusMillis(1)).size() > 0);
  }

  private static List<JsonNode> historyOrEmpty(BlackBox box, Path config, String job) {
    try {
      return history(box, config, job);
    } catch (AssertionError e) {
      System.out.println("[blackbox] history failed, asking again: " + e.getMessage());
      return List.of();
    }
  }

  /** The rows of {@code history --json} for {@code job}. */
  static List<JsonNode> history(BlackBox box, Path config, String job) {
    String json =
        Cli.run(box.dir(), "history", "--config", config.toString(), "--job", job, "--json");
    List<JsonNode> rows = new ArrayList<>();
    try {
      new ObjectMapper().readTree(json).forEach(rows::add);
    } catch (IOException e) {
      throw new AssertionError("history --json is not JSON: " + json, e);
    }
    return rows;
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

  /**
   * Running, not a zombie: a killed job's process re-parented to a PID 1 that does not reap (some
   * containers and CI sandboxes) stays a zombie, which {@link ProcessHandle#isAlive()} counts as
   * alive.
   */
  private static boolean alive(long pid) {
    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      try {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        char state = stat.charAt(stat.lastIndexOf(')') + 2);
        return state != 'Z' && state != 'X';
      } catch (IOException | RuntimeException e) {
        return false; // gone between the two looks
      }
    }
    return false;
  }
}
