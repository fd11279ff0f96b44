package dev.leasehold.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three replicas watch the same checks on one in-memory store, in virtual time: each event is
 * delivered once across them, at its time.
 */
class CheckWatchTest {
  private static final Instant T0 = Instant.parse("2026-12-01T03:00:00Z");
  private static final Duration PERIOD = Duration.ofSeconds(60);
  private static final Duration GRACE = Duration.ofSeconds(10);
  private static final CheckDefinition CHECK = CheckDefinition.every("nas-scrub", PERIOD, GRACE);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared store = new InMemoryLeaseStore.Shared(time.clock());
  private final Journal journal =
      store.client().backend(new InMemoryExecutionLog()).journal().orElseThrow();
  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final List<CheckWatch> replicas = new ArrayList<>();

  @AfterEach
  void stop() {
    replicas.forEach(CheckWatch::close);
    time.shutdown();
  }

  private CheckWatch replica(String node, CheckDefinition... checks) {
    InMemoryLeaseStore client = store.client();
    CheckWatch watch =
        new CheckWatch(
            client,
            new CheckJournal(journal),
            new LeaseHolds(client, time, time, time.workers()),
            e ->
                sent.add(e.kind() + "@" + Duration.between(T0, e.at()).toSeconds() + " by " + node),
            node,
            time.clock());
    watch.start(List.of(checks), time, time.workers());
    replicas.add(watch);
    return watch;
  }

  /** A ping through {@code replica}'s admin endpoint: recorded, then that replica looks. */
  private void ping(CheckWatch replica, boolean failed) {
    new CheckJournal(journal).ping(CHECK.name(), failed, time.now());
    replica.pinged(CHECK.name());
    time.advance(Duration.ZERO);
  }

  private List<String> kinds() {
    return sent.stream().map(s -> s.substring(0, s.indexOf(' '))).toList();
  }

  @Test
  void aCheckPingedOnThreeReplicasIsMissedOnceAtPeriodPlusGraceNotAgainAndRecoversOnce() {
    CheckWatch a = replica("a", CHECK);
    CheckWatch b = replica("b", CHECK);
    CheckWatch c = replica("c", CHECK);
    time.advance(Duration.ZERO);
    List<CheckWatch> all = List.of(a, b, c);
    for (int i = 0; i < 6; i++) {
      ping(all.get(i % 3), false);
      time.advance(PERIOD);
    }
    assertThat(sent).as("pinged every period: nothing").isEmpty();
    // the last ping was at 300 s: overdue after 370 s, decided at 372 s
    time.advanceTo(T0.plusSeconds(371));
    assertThat(sent).as("not before the deadline and its settle time").isEmpty();
    time.advanceTo(T0.plusSeconds(372));
    assertThat(kinds()).as("one missed, at the deadline").containsExactly("missed@370");

    time.advance(Duration.ofHours(2));
    assertThat(kinds()).as("not repeated while the check stays down").containsExactly("missed@370");

    time.advanceTo(T0.plusSeconds(8000));
    ping(b, false);
    assertThat(kinds())
        .as("the next ping recovers at once")
        .containsExactly("missed@370", "recovered@8000");
    time.advance(Duration.ofSeconds(30));
    assertThat(sent).as("once").hasSize(2);
  }

  @Test
  void aFailPingSendsOneFailedAndTheNextGoodPingRecovers() {
    CheckWatch a = replica("a", CHECK);
    CheckWatch b = replica("b", CHECK);
    time.advance(Duration.ZERO);
    ping(a, false);
    time.advance(Duration.ofSeconds(30));
    ping(b, true);
    time.advance(Duration.ofSeconds(20));
    assertThat(kinds()).containsExactly("failed@30");
    ping(a, false);
    time.advance(Duration.ofSeconds(20));
    assertThat(kinds()).containsExactly("failed@30", "recovered@50");
  }

  @Test
  void aPingWrittenStraightToTheStoreIsSeenByTheReplicasWithoutBeingTold() {
    replica("a", CHECK);
    replica("b", CHECK);
    time.advance(Duration.ZERO);
    new CheckJournal(journal).ping(CHECK.name(), false, time.now());
    time.advanceTo(T0.plusSeconds(100));
    assertThat(kinds()).as("the CLI's ping has its deadline too").containsExactly("missed@70");
    new CheckJournal(journal).ping(CHECK.name(), false, time.now());
    time.advance(CheckWatch.DOWN);
    assertThat(kinds())
        .as("a down check is read often enough to see the recovery")
        .containsExactly("missed@70", "recovered@100");
    new CheckJournal(journal).ping(CHECK.name(), true, time.now());
    time.advance(CheckWatch.IDLE);
    assertThat(kinds())
        .as("a fail ping from the CLI within the idle look")
        .containsExactly("missed@70", "recovered@100", "failed@105");
  }

  @Test
  void aCronCheckIsMissedAtTheNextCronTimeAfterItsPingPlusTheGrace() {
    CheckDefinition nightly =
        CheckDefinition.cron(
            "nas-scrub", Schedule.cron("*/5 * * * *", ZoneOffset.UTC), Duration.ofMinutes(1));
    CheckWatch a = replica("a", nightly);
    replica("b", nightly);
    time.advance(Duration.ofMinutes(1));
    new CheckJournal(journal).ping(nightly.name(), false, time.now());
    a.pinged(nightly.name());
    // pinged at 03:01: the next cron time is 03:05, overdue after 03:06
    time.advanceTo(T0.plus(Duration.ofMinutes(6)).plus(CheckRules.SETTLE).minusMillis(1));
    assertThat(sent).isEmpty();
    time.advance(Duration.ofMillis(1));
    assertThat(kinds()).containsExactly("missed@360");
    time.advance(Duration.ofMinutes(30));
    assertThat(sent).hasSize(1);
  }

  @Test
  void aReplicaThatRestartsMidGapOrAClusterThatRestartsDoesNotSendAgain() {
    CheckWatch a = replica("a", CHECK);
    replica("b", CHECK);
    time.advance(Duration.ZERO);
    ping(a, false);
    time.advanceTo(T0.plusSeconds(80));
    assertThat(kinds()).containsExactly("missed@70");

    a.close();
    replica("a", CHECK);
    time.advance(Duration.ofMinutes(5));
    replicas.forEach(CheckWatch::close);
    replica("a", CHECK);
    replica("b", CHECK);
    replica("c", CHECK);
    time.advance(Duration.ofMinutes(5));
    assertThat(kinds()).as("the mark in the store says it was sent").containsExactly("missed@70");
  }

  @Test
  void aNewCheckSendsNothingAndAnIdleCheckIsNotReadEverySecond() {
    CountingJournal counting = new CountingJournal(journal);
    InMemoryLeaseStore client = store.client();
    CheckWatch watch =
        new CheckWatch(
            client,
            new CheckJournal(counting),
            new LeaseHolds(client, time, time, time.workers()),
            e -> sent.add(e.kind()),
            "a",
            time.clock());
    replicas.add(watch);
    watch.start(List.of(CHECK), time, time.workers());
    time.advance(Duration.ofMinutes(10));
    assertThat(sent).as("never pinged").isEmpty();
    assertThat(counting.reads)
        .as("reads in 10 minutes: one at start, then one per idle look")
        .hasValue(1 + 10);
  }

  @Test
  void anEventIsSentOnceWhenItsSenderDiesBeforeMarkingItAnotherReplicaSendsIt() {
    CheckWatch a = replica("a", CHECK);
    time.advance(Duration.ZERO);
    ping(a, false);
    time.advanceTo(T0.plusSeconds(60));
    a.close(); // the only replica stops before the deadline
    time.advanceTo(T0.plusSeconds(400));
    assertThat(sent).isEmpty();
    replica("b", CHECK);
    time.advance(Duration.ZERO);
    assertThat(sent).as("the next replica that looks sends it").containsExactly("missed@70 by b");
  }

  @Test
  void aReloadWatchesANewCheckAndForgetsARemovedOne() {
    CheckDefinition router =
        CheckDefinition.every("router-backup", Duration.ofSeconds(30), Duration.ZERO);
    CheckWatch a = replica("a", CHECK);
    time.advance(Duration.ZERO);
    new CheckJournal(journal).ping(router.name(), false, time.now());
    ping(a, false);
    a.checks(List.of(router)); // nas-scrub removed, router-backup added
    time.advanceTo(T0.plusSeconds(40));
    assertThat(kinds()).as("the new check is watched").containsExactly("missed@30");
    time.advanceTo(T0.plusSeconds(200));
    assertThat(kinds()).as("the removed check is not").containsExactly("missed@30");
  }

  /** Counts the reads of a journal. */
  private static final class CountingJournal implements dev.leasehold.core.lease.Journal {
    final java.util.concurrent.atomic.AtomicInteger reads =
        new java.util.concurrent.atomic.AtomicInteger();
    private final Journal journal;

    CountingJournal(Journal journal) {
      this.journal = journal;
    }

    @Override
    public dev.leasehold.core.lease.JournalEntry append(String stream, Instant at, String body) {
      return journal.append(stream, at, body);
    }

    @Override
    public List<dev.leasehold.core.lease.JournalEntry> recent(String stream, int limit) {
      reads.incrementAndGet();
      return journal.recent(stream, limit);
    }

    @Override
    public int prune(String stream, Instant before) {
      return journal.prune(stream, before);
    }

    @Override
    public String putIfAbsent(String key, String value) {
      return journal.putIfAbsent(key, value);
    }
  }
}
