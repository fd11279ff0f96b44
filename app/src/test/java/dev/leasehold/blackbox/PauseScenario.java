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
import java.util.Map;

/**
 * Pause and resume, black-box: three daemons (clocks +1.5 s, -1.5 s, 0) run a job every 10 s. After
 * {@code pause} returns, no firing starts anywhere for several periods, through a restart of every
 * daemon, and each firing is recorded once as {@code paused}; {@code resume} runs none of the
 * paused firings and the next one as scheduled. A second job (every 30 s) stays paused from the
 * start until {@code resume --catch-up}, which runs its latest paused firing once. Real time,
 * judged on the ledger and the history, never on a duration.
 */
final class PauseScenario {
  private static final Duration PERIOD = Duration.ofSeconds(10);

  /** A replica whose clock runs 1.5 s ahead may claim a firing that much early (G2). */
  private static final Duration EARLY = Duration.ofMillis(1500);

  private static final Duration LIMIT = Duration.ofSeconds(90);

  private PauseScenario() {}

  record Row(Instant fire, String outcome, String node) {}

  /**
   * The scenario with {@link Scenarios#killPauseAndSkew} on the same three daemons (they have the
   * same clocks): {@code tick} runs beside {@code paced} and {@code slow}, and its holder is killed
   * and restarted, then stopped and continued, while {@code paced} is paused. Each fault starts 3
   * to 7 s after a 10 s firing (real time), when no replica claims {@code paced} (the claims of
   * firing F fall between F − 1.5 s and F + 1.5 s of real time), so every paused firing still gets
   * its row. The ledger of {@code tick} is judged as in {@code killPauseAndSkew} when the daemons
   * are stopped for the restart of this scenario. {@link TriggerScenario} uses the same daemons:
   * its requests while all run, one while none runs.
   */
  static void withKillAndPauseOnTheSameDaemons(BlackBox box, BlackBoxStore store) {
    Path tick = box.dir().resolve("ledger-tick");
    TriggerScenario triggers = new TriggerScenario(box, store);
    run(
        box,
        store,
        new Shared() {
          Scenarios.KillAndPause faults;

          @Override
          public List<String> jobs() {
            return List.of(Configs.ledgerJob("tick", "every: 1s", tick), triggers.job());
          }

          @Override
          public void started(List<Daemon> daemons) {
            faults = Scenarios.KillAndPause.from(Scenarios.settled(), tick, store);
            triggers.whileAllRun();
          }

          @Override
          public void whilePaused(List<Daemon> daemons) {
            faults.run(daemons, PauseScenario::awayFromPacedClaims);
          }

          @Override
          public void stopped(Map<String, Integer> exits) {
            faults.judge(exits);
            triggers.whileNoneRuns();
          }

          @Override
          public void finished() {
            triggers.judge();
          }
        });
  }

  /** Another scenario's part on the same daemons: its jobs, and what it does at each step. */
  interface Shared {
    /** Jobs of the other scenario, in every daemon's config. */
    default List<String> jobs() {
      return List.of();
    }

    /** Every daemon has started. */
    default void started(List<Daemon> daemons) {}

    /** {@code paced} was paused; the daemons run until this returns (and at least 25 s). */
    default void whilePaused(List<Daemon> daemons) {}

    /** Every daemon was stopped with SIGTERM, before they are all started again. */
    default void stopped(Map<String, Integer> exits) {}

    /** The scenario ended and every daemon was stopped. */
    default void finished() {}
  }

  /** 3 to 7 s after a 10 s firing (real time): no replica is claiming {@code paced}. */
  private static boolean awayFromPacedClaims() {
    long second = Instant.now().getEpochSecond() % PERIOD.toSeconds();
    return second >= 3 && second < 7;
  }

  private static void run(BlackBox box, BlackBoxStore store, Shared shared) {
    Path ledger = box.dir().resolve("ledger");
    Path slowLedger = box.dir().resolve("ledger-slow");
    String job = Configs.ledgerJob("paced", "every: 10s\nmisfire-grace: 60s", ledger);
    String slow = Configs.ledgerJob("slow", "every: 30s\nmisfire-grace: 60s", slowLedger);
    List<String> jobs = new ArrayList<>(List.of(job, slow));
    jobs.addAll(shared.jobs());
    List<Daemon> daemons = new ArrayList<>();
    double[] skews = Scenarios.SKEWS;
    for (int i = 0; i < skews.length; i++) {
      String node = "bb-" + (char) ('a' + i);
      Path file =
          Configs.write(
              box.dir(), node, store.yaml(), Scenarios.LEASE, jobs.toArray(String[]::new));
      daemons.add(Daemon.start(box, node, file, skews[i]));
    }
    daemons.forEach(Daemon::awaitStarted);
    shared.started(daemons);
    // the CLI's config: the daemons' jobs and store, and a command timeout long enough for a loaded
    // machine (the default follows the lease's short renew interval: a 1 s connect timeout)
    Path config =
        Configs.write(
            box.dir(),
            "observer",
            store.yaml() + "command-timeout: 10s\n",
            Scenarios.LEASE,
            jobs.toArray(String[]::new));
    // 'slow' (every 30 s) is paused for the whole scenario, until its resume --catch-up
    Cli.run(box.dir(), "pause", "--config", config.toString(), "slow");
    Instant slowPaused = Instant.now();
    Scenarios.awaitRuns(ledger, Instant.EPOCH, 2);

    // pause: from its return no firing starts, through a restart of every daemon
    String paused =
        Cli.run(box.dir(), "pause", "--config", config.toString(), "paced", "--reason", "bb test");
    Instant pausedAt = Instant.now();
    assertThat(paused).contains("job 'paced' paused since").contains("bb test");
    shared.whilePaused(daemons);
    Scenarios.sleep(
        Duration.between(Instant.now(), pausedAt.plus(PERIOD.multipliedBy(2)).plusSeconds(5)));
    assertThat(Cli.run(box.dir(), "status", "--config", config.toString()))
        .contains("since")
        .contains("bb test");
    Instant down = Instant.now();
    shared.stopped(Scenarios.stopAll(daemons));
    daemons.forEach(Daemon::restart);
    daemons.forEach(Daemon::awaitStarted);
    Instant up = Instant.now();
    Scenarios.sleep(PERIOD.multipliedBy(2));
    // the resume's command line takes seconds: it starts 1 s after a firing, which every replica
    // claims (as paused) at once on the store's clock, and returns before the next one comes due
    Instant justAfter = firings(Instant.now(), Instant.MAX).get(0).plusSeconds(1);
    Scenarios.sleep(Duration.between(Instant.now(), justAfter));
    Instant resumedAt = resume(box, config, "paced", false);
    assertThat(runsAfter(ledger, pausedAt.plus(EARLY)))
        .as("firings started after pause returned (%s), before the resume", pausedAt)
        .filteredOn(f -> f.isBefore(resumedAt))
        .isEmpty();

    // resume: the next firing runs, none of the paused ones
    Poll.until("a run after the resume", LIMIT, () -> !runsAfter(ledger, resumedAt).isEmpty());
    List<Row> history = history(box, config);
    List<Instant> pausedRows =
        history.stream().filter(r -> r.outcome().equals("paused")).map(Row::fire).toList();
    assertThat(pausedRows).as("paused rows, once each").doesNotHaveDuplicates();
    List<Instant> pausedFirings = firings(pausedAt.plus(EARLY).plusMillis(500), resumedAt);
    assertThat(pausedFirings).as("firings while paused").hasSizeGreaterThanOrEqualTo(4);
    // firings that fell while every daemon was down coalesce into the start-up catch-up (G9),
    // which records the latest of them; the last one may be in flight when resume returns
    List<Instant> recordable =
        pausedFirings.stream()
            .filter(f -> f.isBefore(down) || f.isAfter(up))
            .filter(f -> f.isBefore(resumedAt.minusSeconds(2)))
            .toList();
    assertThat(pausedRows)
        .as("every firing while paused, before and after a restart of every daemon, is recorded")
        .containsAll(recordable);
    assertThat(runsAfter(ledger, pausedAt.plus(EARLY)))
        .as("no paused firing ran after the plain resume")
        .doesNotContainAnyElementsOf(pausedRows);
    assertThat(history).filteredOn(r -> r.outcome().equals("missed")).isEmpty();

    // resume --catch-up of 'slow' right after one of its paused firings: that one runs, once, and
    // no other paused firing (30 s leave room for a slow command line and the 2 s resume poll)
    Instant next = firings(Instant.now(), Instant.MAX, Duration.ofSeconds(30)).get(0);
    Scenarios.sleep(Duration.between(Instant.now(), next.plusMillis(500)));
    Scenarios.sleep(Duration.ofSeconds(1)); // its paused row is written right after the claim
    List<Instant> pausedSlow =
        history(box, config, "slow").stream()
            .filter(r -> r.outcome().equals("paused"))
            .map(Row::fire)
            .sorted()
            .toList();
    assertThat(pausedSlow).as("'slow' firings recorded paused").hasSizeGreaterThanOrEqualTo(2);
    Instant recorded = pausedSlow.get(pausedSlow.size() - 1);
    assertThat(recorded).isEqualTo(next);
    resume(box, config, "slow", true);
    Poll.until(
        "the latest paused firing " + recorded + " to run after resume --catch-up",
        LIMIT,
        () -> Ledger.read(slowLedger).runs().stream().anyMatch(e -> e.fire().equals(recorded)));
    Scenarios.sleep(Duration.ofSeconds(3));
    Scenarios.stopAll(daemons);
    shared.finished();

    Ledger result = Ledger.read(ledger);
    List<Instant> all = result.runs().stream().map(Ledger.Entry::fire).toList();
    assertThat(all).as("every firing of 'paced' ran at most once").doesNotHaveDuplicates();
    List<Instant> slowRuns =
        Ledger.read(slowLedger).runs().stream().map(Ledger.Entry::fire).toList();
    assertThat(slowRuns).as("every firing of 'slow' ran at most once").doesNotHaveDuplicates();
    assertThat(slowRuns)
        .as("of the paused firings %s of 'slow' only the latest ran", pausedSlow)
        .filteredOn(pausedSlow::contains)
        .containsExactly(recorded);
    assertThat(slowRuns)
        .as("'slow' ran nothing else while paused")
        .filteredOn(f -> f.isAfter(slowPaused.plus(EARLY)) && f.isBefore(recorded))
        .isEmpty();
    assertThat(history(box, config, "slow"))
        .filteredOn(r -> r.fire().equals(recorded))
        .extracting(Row::outcome)
        .as("the caught-up firing: its paused row, then its run")
        .containsExactlyInAnyOrder("paused", "succeeded");
    System.out.println(
        "[blackbox] pause: paused rows "
            + pausedRows.size()
            + ", runs "
            + all.size()
            + ", 'slow' caught up "
            + recorded);
  }

  private static Instant resume(BlackBox box, Path config, String job, boolean catchUp) {
    List<String> args = new ArrayList<>(List.of("resume", "--config", config.toString(), job));
    if (catchUp) {
      args.add("--catch-up");
    }
    String out = Cli.run(box.dir(), args.toArray(String[]::new));
    assertThat(out).contains("job '" + job + "' resumed");
    return Instant.now();
  }

  /** The firings of the ledger's runs at or after {@code from}. */
  private static List<Instant> runsAfter(Path ledger, Instant from) {
    return Ledger.read(ledger).runsFrom(from).stream().map(Ledger.Entry::fire).toList();
  }

  /** The 10 s firings in {@code [from, to)}. */
  private static List<Instant> firings(Instant from, Instant to) {
    return firings(from, to, PERIOD);
  }

  /** The firings every {@code period} (epoch-aligned) in {@code [from, to)}. */
  private static List<Instant> firings(Instant from, Instant to, Duration period) {
    List<Instant> out = new ArrayList<>();
    long p = period.toSeconds();
    // the first multiple of the period at or after from, its fraction of a second included
    long second = from.getEpochSecond() + (from.getNano() > 0 ? 1 : 0);
    long s = (second + p - 1) / p * p;
    for (Instant f = Instant.ofEpochSecond(s); f.isBefore(to) && out.size() < 1000; ) {
      out.add(f);
      f = f.plus(period);
    }
    return out;
  }

  private static List<Row> history(BlackBox box, Path config) {
    return history(box, config, "paced");
  }

  private static List<Row> history(BlackBox box, Path config, String job) {
    String json =
        Cli.run(
            box.dir(),
            "history",
            "--config",
            config.toString(),
            "--job",
            job,
            "--limit",
            "1000",
            "--json");
    List<Row> rows = new ArrayList<>();
    try {
      for (JsonNode row : new ObjectMapper().readTree(json)) {
        rows.add(
            new Row(
                Instant.parse(row.get("fire_time").asText()),
                row.get("outcome").asText(),
                row.get("node").asText()));
      }
    } catch (IOException e) {
      throw new AssertionError("history --json is not JSON: " + json, e);
    }
    return rows;
  }
}
