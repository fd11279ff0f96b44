package dev.leasehold.blackbox;

import dev.leasehold.app.testing.Poll;
import dev.leasehold.blackbox.servers.MongoServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Black-box tests of daemons on {@code store.type: mongo}, against mongo-java-server running as its
 * own process: it is a wire-compatible test server, not a real mongod (none can be installed on
 * these machines).
 */
class MongoBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  private MongoTestStore store() {
    return new MongoTestStore(MongoServerProcess.start(box));
  }

  @Test
  void threeSkewedDaemonsRunEveryFiringOnceThroughAKillAndAPause() {
    Scenarios.killPauseAndSkew(box, store());
  }

  @Test
  void aDeletedLeaseDocumentDoesNotWedgeTheJob() {
    Scenarios.aDeletedLeaseRecordDoesNotWedgeTheJob(box, store());
  }

  /**
   * A job longer than its TTL (ttl 2 s, renewed every 500 ms, runs 5 s, every 10 s) on three
   * daemons with clocks +1.5 s, -1.5 s and 0. The holder of one run is SIGKILLed, the holder of a
   * later run is SIGSTOPped for 4 s (twice the TTL, less than the gap to the next firing) and
   * continued. No firing runs twice and no two runs overlap: the {@code start} and {@code end}
   * lines (the job's TERM trap writes {@code end} too) never interleave.
   */
  @Test
  void aJobLongerThanItsTtlNeverRunsTwiceAtOnce() {
    Path ledger = box.dir().resolve("ledger");
    String line = "$LEASEHOLD_FIRE_TIME $LEASEHOLD_NODE $LEASEHOLD_FENCE";
    String script =
        "trap 'echo \"end "
            + line
            + "\" >> \""
            + ledger
            + "\"; exit 143' TERM; echo \"start "
            + line
            + "\" >> \""
            + ledger
            + "\"; sleep 5 & wait $!; echo \"end "
            + line
            + "\" >> \""
            + ledger
            + "\"";
    String job =
        "name: long\nevery: 10s\nttl: 2s\nrenew-every: 500ms\nkill-grace: 2s\n"
            + Configs.shell(script);
    List<Daemon> daemons =
        Scenarios.startNodes(box, store().yaml(), Scenarios.LEASE, job, 1.5, -1.5, 0);
    LedgerChecker checker = LedgerChecker.every(Duration.ofSeconds(10)).noOverlap();
    // the start-up catch-up run (G9) lasts 5 s and makes the next firing an overlap: skipped
    Poll.until(
        "the start-up run to end",
        Duration.ofSeconds(60),
        () -> endsBalanceStarts(ledger) && !Ledger.read(ledger).runs().isEmpty());
    Instant from = Instant.now();

    Daemon killed = startedRunHolder(ledger, daemons);
    Scenarios.sleep(Duration.ofSeconds(1));
    Instant killedAt = Instant.now();
    killed.kill(ledger);
    checker.fault(
        "SIGKILL " + killed, killedAt, killedAt.plus(Duration.ofSeconds(2)).plus(Scenarios.SLACK));
    killed.restart();
    killed.awaitStarted();

    Daemon paused = startedRunHolder(ledger, daemons);
    Scenarios.sleep(Duration.ofSeconds(1));
    Instant pausedAt = Instant.now();
    paused.pause();
    Scenarios.sleep(Duration.ofSeconds(4));
    paused.resume();
    checker.fault(
        "SIGSTOP " + paused + " for 4s",
        pausedAt,
        pausedAt.plus(Duration.ofSeconds(2)).plus(Scenarios.SLACK));

    startedRunHolder(ledger, daemons);
    Poll.until("the last run to end", Duration.ofSeconds(30), () -> endsBalanceStarts(ledger));
    Instant to = Instant.now().minusSeconds(3);
    Scenarios.stopAll(daemons);
    Scenarios.judge(checker.window(from, to), ledger);
  }

  /** Waits for a new {@code start} line and returns the daemon running that run. */
  private static Daemon startedRunHolder(Path ledger, List<Daemon> daemons) {
    return Scenarios.holderRightNow(ledger, daemons);
  }

  private static boolean endsBalanceStarts(Path ledger) {
    Ledger l = Ledger.read(ledger);
    long starts = l.entries().stream().filter(e -> e.tag().equals("start")).count();
    long ends =
        l.entries().stream().filter(e -> e.tag().equals("end") || e.tag().equals("killed")).count();
    return starts == ends;
  }
}
