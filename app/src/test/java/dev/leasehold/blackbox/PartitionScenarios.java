package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.assertj.core.api.SoftAssertions;

/**
 * Network partitions between daemons and their store, made by a {@link Relay} per daemon (and store
 * node: {@link Relays}) that holds every byte (no RST, no FIN) and releases them when the cut
 * heals. Time is real; the scenarios wait for things to appear in the ledgers and judge the
 * ledgers, never a duration.
 */
final class PartitionScenarios {
  private static final Duration TTL = Scenarios.TTL;
  private static final Duration SLACK = Scenarios.SLACK;
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final String RUN = Configs.LEDGER_LINE;

  private PartitionScenarios() {}

  /** What the store promises for the latest firing missed while it was cut off from everybody. */
  enum CatchUp {
    /** It runs exactly once after the heal (claims held in the cut are undone or rolled back). */
    RUNS_ONCE,
    /**
     * It runs at most once: a claim held in the cut that the store applies on the heal and its
     * sender cannot undo (its driver closed the connection) may keep the lease of an older firing
     * past the skew allowance, and the latest is then reported missed (MongoDB).
     */
    AT_MOST_ONCE
  }

  /**
   * Three daemons, each behind its own relay, run a long job (30 s on a 3 s lease renewed every
   * second), a 1 s job and a 10 s job with {@code misfire-grace: 8s}.
   *
   * <p>First the holder of the long job is cut off for 3 × TTL: its job must end before anyone
   * else's run of it starts (no overlap), the daemon must log the loss, fences rise, the others
   * keep running the 1 s job, after the cut heals the same process runs jobs again, and the history
   * says {@code lease-lost} for the run that was cut off (checked last, once the store is
   * reachable).
   *
   * <p>Then the store is cut off from everybody for 12 s (longer than the grace), from 1 s before a
   * firing F−10 s of the 10 s job until 1 s after F: after the heal F runs exactly once (the latest
   * missed firing, still within the grace: 7 s of it are left, room for a SQL pool's reconnect,
   * whose retries back off to 5 s apart in a long outage) and F−10 s never (G9), also where the
   * store applies the claims held in the cut when it heals (Redis: each one's sender undoes it
   * behind it). With {@link CatchUp#AT_MOST_ONCE}, F runs at most once, and if it does not its
   * history says {@code missed}; F−10 s never runs.
   */
  static void holderCutOffThenStoreCutOff(
      BlackBox box, BlackBoxStore store, CatchUp catchUp, int... storePorts) {
    Path longLedger = box.dir().resolve("long.ledger");
    Path tickLedger = box.dir().resolve("tick.ledger");
    Path catchupLedger = box.dir().resolve("catchup.ledger");
    String longJob =
        "name: long\nevery: 5s\nrenew-every: 1s\nkill-grace: 1s\n"
            + Configs.shell(
                "trap 'echo \"end "
                    + RUN
                    + "\" >> \""
                    + longLedger
                    + "\"; exit 143' TERM; echo \"start "
                    + RUN
                    + "\" >> \""
                    + longLedger
                    + "\"; sleep 30 & wait $!; echo \"end "
                    + RUN
                    + "\" >> \""
                    + longLedger
                    + "\"");
    String tickJob = Configs.ledgerJob("tick", "every: 1s", tickLedger);
    String catchupJob =
        Configs.ledgerJob("catchup", "every: 10s\nmisfire-grace: 8s", catchupLedger);

    List<Relays> relays = new ArrayList<>();
    List<Daemon> daemons = new ArrayList<>();
    for (String node : List.of("bb-a", "bb-b", "bb-c")) {
      Relays relay = box.closeAfter(Relays.to(node, storePorts));
      relays.add(relay);
      Path config =
          Configs.write(
              box.dir(),
              node,
              relay.through(store.yaml()),
              Scenarios.LEASE,
              longJob,
              tickJob,
              catchupJob);
      daemons.add(Daemon.start(box, node, config, 0));
    }
    daemons.forEach(Daemon::awaitStarted);
    // the CLI reads history and status straight from the store, past the relays
    Path observer = observer(box, store, tickJob);
    LedgerChecker ticks = LedgerChecker.every(Duration.ofSeconds(1));
    Instant from = Scenarios.settled();

    // --- (a) the holder of the long job is cut off for 3 x TTL ---------------------------------
    Ledger.Entry held = awaitStart(longLedger, Instant.EPOCH);
    Daemon holder = daemonOf(held, daemons);
    Relays holderRelay = relays.get(daemons.indexOf(holder));
    Scenarios.awaitRuns(tickLedger, from, 3);
    Instant cut = Instant.now();
    holderRelay.cut();
    // a firing due just before the cut may have its claim in flight: the window opens 1 s early
    ticks.fault(
        "cut " + holder, cut.minusSeconds(1), cut.plus(TTL.multipliedBy(3)).plus(TTL).plus(SLACK));
    Scenarios.sleep(TTL.multipliedBy(3));
    holderRelay.heal();
    Instant healed = Instant.now();
    System.out.printf(
        "[partition] %s cut off %s .. %s, %d bytes held%n",
        holder, cut, healed, holderRelay.heldBytes());

    Ledger.Entry next =
        awaitEntry(
            "a later firing of the long job to start",
            longLedger,
            e -> e.tag().equals("start") && e.fire().isAfter(held.fire()));
    assertThat(next.fence()).as("fence of the next holder").isGreaterThan(held.fence());
    assertThat(Ledger.read(longLedger).entries())
        .as("the cut-off run of %s ended (SIGTERM trap)", held)
        .anyMatch(
            e ->
                e.tag().equals("end")
                    && e.fire().equals(held.fire())
                    && e.node().equals(held.node()));
    // the daemon's watchdog logs the loss, unless the run's supervisor reached the lease deadline
    // first (its renewals timed out against the cut store): then the run's record says so
    Poll.until(
        holder + " to log the lost lease",
        LIMIT,
        () ->
            holder.logged("lease lost job=long")
                || holder.logged(
                    "execution job=long firing="
                        + held.fire()
                        + " node="
                        + held.node()
                        + " fence="
                        + held.fence()
                        + " trigger=scheduled outcome=lease-lost"));
    Poll.until(
        holder + " to run jobs again without a restart",
        LIMIT,
        () ->
            Ledger.read(tickLedger).runsFrom(healed).stream()
                .anyMatch(e -> e.node().equals(holder.node())));
    // --- (c) the store is cut off from everybody for longer than the misfire grace ------------
    // the first 10 s firing F that leaves time to cut 11 s before it
    Instant latest =
        Instant.ofEpochSecond((Instant.now().plusMillis(11_500).getEpochSecond() / 10 + 1) * 10);
    Scenarios.sleep(Duration.between(Instant.now(), latest.minusSeconds(11)));
    Instant storeCut = Instant.now();
    relays.forEach(Relays::cut);
    Scenarios.sleep(Duration.between(Instant.now(), latest.plusSeconds(1)));
    relays.forEach(Relays::heal);
    Instant storeHealed = Instant.now();
    ticks.fault("store cut off", storeCut.minusSeconds(1), storeHealed.plus(TTL).plus(SLACK));
    System.out.printf(
        "[partition] store cut off %s .. %s; missed catch-up firings %s and %s%n",
        storeCut, storeHealed, latest.minusSeconds(10), latest);

    Scenarios.awaitRuns(tickLedger, storeHealed.plus(TTL).plus(SLACK), 4);
    Poll.until(
        "a run of the catch-up job after " + latest,
        LIMIT,
        () -> !Ledger.read(catchupLedger).runsFrom(latest.plusSeconds(1)).isEmpty());
    Instant to = Instant.now().minusSeconds(3);
    Scenarios.stopAll(daemons);

    SoftAssertions soft = new SoftAssertions();
    soft.check(
        () -> Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(5)).noOverlap(), longLedger));
    soft.check(() -> Scenarios.judge(ticks.window(from, to), tickLedger));
    soft.check(() -> Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(10)), catchupLedger));
    List<Instant> caughtUp =
        Ledger.read(catchupLedger).runs().stream()
            .map(Ledger.Entry::fire)
            .filter(f -> !f.isBefore(storeCut.minusSeconds(1)) && !f.isAfter(latest))
            .toList();
    String latestOutcome = Scenarios.outcomes(box, observer, "catchup").get(latest.toString());
    System.out.printf(
        "[partition] catch-up firings run after the store cut: %s; history of %s: %s%n",
        caughtUp, latest, latestOutcome);
    if (catchUp == CatchUp.RUNS_ONCE) {
      soft.assertThat(caughtUp)
          .as(
              "catch-up firings missed in the store cut %s .. %s: the latest (%s) once, the older"
                  + " never",
              storeCut, storeHealed, latest)
          .containsExactly(latest);
      // the claims held in the cut reach the store on the heal (Redis applies them): each one's
      // token-checked undo follows it on its connection, so none keeps a lease that nobody runs
      soft.assertThat(latestOutcome)
          .as("history of the latest catch-up firing %s", latest)
          .isNotEqualTo("missed");
    } else {
      soft.assertThat(caughtUp)
          .as(
              "catch-up firings missed in the store cut %s .. %s: the latest (%s) at most once,"
                  + " the older never",
              storeCut, storeHealed, latest)
          .isSubsetOf(List.of(latest));
      if (caughtUp.isEmpty()) {
        // what operators are told to watch for when the catch-up did not happen
        soft.assertThat(latestOutcome)
            .as("history of the latest catch-up firing %s, which did not run", latest)
            .isEqualTo("missed");
      }
    }
    soft.assertThat(Scenarios.outcomes(box, observer, "long").get(held.fire().toString()))
        .as("history of the run cut off (%s), now that the store is reachable again", held)
        .isEqualTo("lease-lost");
    soft.assertAll();
  }

  /**
   * One daemon, a job {@code every: 10s} on a 2 s lease, a {@code command-timeout} of 10 s so that
   * the claim waits for its answer. The relay holds the store's answers from 1.5 s before a firing
   * F until 4 s after it: the claim reaches the store and wins, and its answer arrives after the
   * lease's validity (counted from the moment the claim was sent) has passed. The firing must not
   * run, although the store granted it (the next run's fence is two above the previous one), and
   * the next firing runs as usual on the same process.
   */
  static void lateClaimAnswer(BlackBox box, BlackBoxStore store, int... storePorts) {
    lateClaimAnswer(box, store, "bb-a", storePorts);
  }

  /**
   * {@link #holderCutOffThenStoreCutOff} and, at the same time on the same store (database, key
   * prefix, Redis nodes), {@link #lateClaimAnswer} with its own daemon {@code bb-late} behind its
   * own relay: the two share nothing but the store (other jobs, other relays), and each is judged
   * as when it runs alone.
   */
  static void holderCutOffThenStoreCutOffBesideALateClaimAnswer(
      BlackBox box, BlackBoxStore store, int... storePorts) {
    holderCutOffThenStoreCutOffBesideALateClaimAnswer(box, store, CatchUp.RUNS_ONCE, storePorts);
  }

  /** As above, with what the store promises for the latest firing missed in the store cut. */
  static void holderCutOffThenStoreCutOffBesideALateClaimAnswer(
      BlackBox box, BlackBoxStore store, CatchUp catchUp, int... storePorts) {
    Throwable[] lateFailure = new Throwable[1];
    Thread late =
        new Thread(
            () -> {
              try {
                lateClaimAnswer(box, store, "bb-late", storePorts);
              } catch (Throwable t) {
                lateFailure[0] = t;
              }
            },
            "late-claim-answer");
    late.setDaemon(true);
    late.start();
    try {
      holderCutOffThenStoreCutOff(box, store, catchUp, storePorts);
      late.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } finally {
      late.interrupt();
    }
    if (lateFailure[0] != null) {
      throw new AssertionError(
          "the late claim answer: " + lateFailure[0].getMessage(), lateFailure[0]);
    }
  }

  private static void lateClaimAnswer(
      BlackBox box, BlackBoxStore store, String node, int... storePorts) {
    Path ledger = box.dir().resolve(node + ".ledger");
    String job = Configs.ledgerJob("late", "every: 10s", ledger);
    Relays relay = box.closeAfter(Relays.to(node, storePorts));
    String yaml = relay.through(store.yaml()) + "command-timeout: 10s\n";
    Daemon daemon =
        Daemon.start(box, node, Configs.write(box.dir(), node, yaml, "ttl: 2s", job), 0);
    daemon.awaitStarted();
    Scenarios.awaitRuns(ledger, Instant.EPOCH, 1);

    Instant firing =
        Instant.ofEpochSecond((Instant.now().plusSeconds(3).getEpochSecond() / 10 + 1) * 10);
    Scenarios.sleep(Duration.between(Instant.now(), firing.minusMillis(1500)));
    relay.holdAnswers();
    Scenarios.sleep(Duration.between(Instant.now(), firing.plusSeconds(4)));
    relay.heal();
    System.out.printf(
        "[partition] answers held %s .. %s, %d bytes held%n",
        firing.minusMillis(1500), Instant.now(), relay.heldBytes());
    Scenarios.awaitRuns(ledger, firing.plusSeconds(10), 1);
    Scenarios.stopAll(List.of(daemon));
    Ledger result = Ledger.read(ledger);
    Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(10)), ledger);
    assertThat(result.runs())
        .as("the claim of %s was answered after its lease's validity: it must not run", firing)
        .noneMatch(e -> e.fire().equals(firing));
    long before =
        result.runs().stream()
            .filter(e -> e.fire().isBefore(firing))
            .mapToLong(Ledger.Entry::fence)
            .max()
            .orElseThrow(() -> new AssertionError("no run before " + firing));
    long after =
        result.runs().stream()
            .filter(e -> e.fire().isAfter(firing))
            .mapToLong(Ledger.Entry::fence)
            .min()
            .orElseThrow();
    assertThat(after)
        .as("the claim of %s reached the store and won (it took a fence) before its answer", firing)
        .isEqualTo(before + 2);
  }

  private static Ledger.Entry awaitStart(Path ledger, Instant after) {
    return awaitEntry(
        "a run of the long job to start",
        ledger,
        e -> e.tag().equals("start") && e.fire().isAfter(after));
  }

  /** Waits for the first ledger entry that matches and returns it. */
  private static Ledger.Entry awaitEntry(String what, Path ledger, Predicate<Ledger.Entry> match) {
    Ledger.Entry[] found = new Ledger.Entry[1];
    Poll.until(
        what + " in " + ledger,
        LIMIT,
        () -> {
          found[0] = Ledger.read(ledger).entries().stream().filter(match).findFirst().orElse(null);
          return found[0] != null;
        });
    return found[0];
  }

  /**
   * A config for the CLI that reaches the store directly, with a command timeout long enough for a
   * loaded machine (the default follows the jobs' short renew interval).
   */
  private static Path observer(BlackBox box, BlackBoxStore store, String job) {
    return Configs.write(
        box.dir(), "observer", store.yaml() + "command-timeout: 10s\n", Scenarios.LEASE, job);
  }

  private static Daemon daemonOf(Ledger.Entry entry, List<Daemon> daemons) {
    return daemons.stream()
        .filter(d -> d.node().equals(entry.node()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("unknown node in the ledger: " + entry));
  }
}
