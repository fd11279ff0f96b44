package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.NoticeNames;
import dev.leasehold.core.lease.RunSeats;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HistoryPrunerTest {
  private static final Instant NOW = Instant.parse("2026-12-01T08:00:20Z");
  private static final HistoryRetention DAY = new HistoryRetention(Duration.ofDays(1), 1000);

  private final InMemoryLeaseStore.Shared leases =
      new InMemoryLeaseStore.Shared(Clock.fixed(NOW, ZoneOffset.UTC));
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();

  private void seed(String job, int count, Instant finished) {
    for (int i = 0; i < count; i++) {
      Instant at = finished.plusMillis(i);
      history.record(
          new ExecutionRecord(
              job, at, "n", i + 1, TriggerKind.SCHEDULED, at, at, Outcome.SUCCEEDED, 0, null));
    }
  }

  private HistoryPruner pruner(String node, Instant now) {
    return new HistoryPruner(
        leases.client(),
        Optional.empty(),
        history,
        DAY,
        node,
        Clock.fixed(now, ZoneOffset.UTC),
        null,
        System::nanoTime);
  }

  @Test
  void oneReplicaPrunesAMinuteAndTheOthersFindItDone() {
    seed("old", 1200, NOW.minus(Duration.ofDays(2)));
    seed("fresh", 3, NOW.minusSeconds(30));

    assertThat(pruner("a", NOW).pruneOnce()).contains(1200);
    assertThat(pruner("b", NOW.plusSeconds(5)).pruneOnce()).as("same minute").isEmpty();
    assertThat(history.all()).extracting(ExecutionRecord::job).containsOnly("fresh");
    assertThat(pruner("b", NOW.plusSeconds(60)).pruneOnce()).as("the next minute").contains(0);
    assertThat(leases.client().inspect(HistoryPruner.LEASE).orElseThrow().held())
        .as("released after the prune")
        .isFalse();
  }

  @Test
  void aBacklogLargerThanOneRunsBudgetIsWorkedOffOverTheNextMinutes() {
    seed("old", 5 * HistoryPruner.BATCH, NOW.minus(Duration.ofDays(2)));
    AtomicLong nanos = new AtomicLong();
    // every reading of the ticker is half the budget later: two batches per minute
    HistoryPruner slow =
        new HistoryPruner(
            leases.client(),
            Optional.empty(),
            history,
            DAY,
            "a",
            Clock.fixed(NOW, ZoneOffset.UTC),
            null,
            () -> nanos.getAndAdd(HistoryPruner.BUDGET.toNanos() / 2 + 1));

    Optional<Integer> first = slow.pruneOnce();
    assertThat(first).contains(2 * HistoryPruner.BATCH);
    assertThat(history.all()).hasSize(3 * HistoryPruner.BATCH);
    assertThat(pruner("b", NOW.plusSeconds(60)).pruneOnce()).contains(3 * HistoryPruner.BATCH);
    assertThat(history.all()).isEmpty();
  }

  @Test
  void aStoreThatFailsLosesNothingAndIsTriedAgain() {
    seed("old", 10, NOW.minus(Duration.ofDays(2)));
    InMemoryLeaseStore down = leases.client();
    leases.setReachable(false);
    assertThat(
            new HistoryPruner(down, history, DAY, "a", Clock.fixed(NOW, ZoneOffset.UTC))
                .pruneOnce())
        .contains(0);
    assertThat(history.all()).hasSize(10);
    leases.setReachable(true);
    assertThat(pruner("a", NOW).pruneOnce()).contains(10);
  }

  @Test
  void theRecordsOfRemovedJobsAreForgottenAfterTheGraceAndFencesGoOnRising() {
    VirtualTime time = new VirtualTime(NOW.minus(RemovedLeases.GRACE).minus(Duration.ofDays(1)));
    InMemoryLeaseStore.Shared store = new InMemoryLeaseStore.Shared(time.clock());
    InMemoryLeaseStore client = store.client();
    Set<String> jobs = new HashSet<>(Set.of("kept", "removed-later"));
    // "gone" last fired eight days ago; "recent" two days ago; "held" is held by a run
    Lease gone = client.claim("gone", time.now(), "n", Duration.ofMinutes(1)).orElseThrow();
    client.release(gone);
    client.release(client.claim("kept", time.now(), "n", Duration.ofMinutes(1)).orElseThrow());
    client.release(
        client.claim("removed-later", time.now(), "n", Duration.ofMinutes(1)).orElseThrow());
    time.advanceTo(NOW.minus(Duration.ofDays(2)));
    client.release(client.claim("recent", time.now(), "n", Duration.ofMinutes(1)).orElseThrow());
    client.claim("held", time.now().minusSeconds(1), "n", Duration.ofDays(3)).orElseThrow();
    client.pause("paused", "op", null, false);
    client.release(
        client.acquire("_leasehold.group.g.0", "n", Duration.ofMinutes(1)).orElseThrow());
    time.advanceTo(NOW);

    HistoryPruner pruner =
        new HistoryPruner(
            client,
            Optional.of(client),
            history,
            DAY,
            "a",
            time.clock(),
            () -> Set.copyOf(jobs),
            System::nanoTime);
    List<String> told = new java.util.ArrayList<>();
    pruner.onForgotten(told::add);
    assertThat(pruner.pruneOnce()).contains(0);
    assertThat(told)
        .as("jobs whose records were forgotten, for the audit trail")
        .containsExactly("gone");
    assertThat(client.list())
        .extracting(LeaseState::name)
        .doesNotContain("gone")
        .contains("kept", "removed-later", "recent", "held", "paused", "_leasehold.group.g.0");

    // a reload removes a job: the next hour's pass forgets it, not the minutes in between
    jobs.remove("removed-later");
    time.advance(Duration.ofMinutes(1));
    assertThat(pruner.pruneOnce()).contains(0);
    assertThat(client.inspect("removed-later")).as("not at 08:01").isPresent();
    time.advance(Duration.ofMinutes(59));
    assertThat(pruner.pruneOnce()).contains(0);
    assertThat(client.inspect("removed-later")).isEmpty();
    assertThat(client.inspect("kept")).isPresent();
    assertThat(told).containsExactly("gone", "removed-later");

    // the removed job returns: it runs, with a fence above the one given before
    Lease back = client.claim("gone", time.now(), "n", Duration.ofMinutes(1)).orElseThrow();
    assertThat(back.fence()).isGreaterThan(gone.fence());
  }

  @Test
  void runSeatsFreeForTheGraceAreForgottenWhetherTheirJobIsConfiguredOrNot() {
    VirtualTime time = new VirtualTime(NOW.minus(RemovedLeases.GRACE).minus(Duration.ofDays(1)));
    InMemoryLeaseStore client = new InMemoryLeaseStore.Shared(time.clock()).client();
    String longJob = "j".repeat(100);
    for (String seat :
        List.of(
            RunSeats.seatName("kept", 0),
            RunSeats.seatName("gone", 0),
            RunSeats.seatName(longJob, 1))) {
      client.release(client.acquire(seat, "n", Duration.ofMinutes(1)).orElseThrow());
    }
    time.advanceTo(NOW.minus(Duration.ofDays(1)));
    client.release(
        client.acquire(RunSeats.seatName("kept", 1), "n", Duration.ofMinutes(1)).orElseThrow());
    client.acquire(RunSeats.seatName("kept", 2), "n", Duration.ofDays(3)).orElseThrow();
    time.advanceTo(NOW);

    HistoryPruner pruner =
        new HistoryPruner(
            client,
            Optional.of(client),
            history,
            DAY,
            "a",
            time.clock(),
            () -> Set.of("kept", longJob),
            System::nanoTime);
    List<String> told = new java.util.ArrayList<>();
    pruner.onForgotten(told::add);
    assertThat(pruner.pruneOnce()).contains(0);
    assertThat(client.list())
        .extracting(LeaseState::name)
        .doesNotContain(
            RunSeats.seatName("kept", 0),
            RunSeats.seatName("gone", 0),
            RunSeats.seatName(longJob, 1))
        .contains(RunSeats.seatName("kept", 1), RunSeats.seatName("kept", 2));
    assertThat(told).as("seats are no jobs of the audit trail").isEmpty();
    assertThat(RunSeats.seatName(longJob, RunSeats.MAX - 1))
        .as("fits under any namespace")
        .hasSizeLessThanOrEqualTo(LeaseNames.MAX_LENGTH - 55);
    assertThat(RunSeats.isSeatOf(longJob, RunSeats.seatName(longJob, 63))).isTrue();
    assertThat(RunSeats.isSeatOf("kept", RunSeats.seatName("kept-2", 0))).isFalse();
    assertThat(RunSeats.seatName(longJob, 0))
        .as("long job names are told apart")
        .isNotEqualTo(RunSeats.seatName("j".repeat(99) + "k", 0));
  }

  @Test
  void theNotificationRecordsOfARemovedJobGoWithItAndAConfiguredJobsStay() {
    VirtualTime time = new VirtualTime(NOW.minus(RemovedLeases.GRACE).minus(Duration.ofDays(1)));
    InMemoryLeaseStore client = new InMemoryLeaseStore.Shared(time.clock()).client();
    String longJob = "j".repeat(90);
    for (String job : List.of("gone", "kept", longJob)) {
      client.release(
          client.acquire(NoticeNames.desk(job), "n", Duration.ofMinutes(1)).orElseThrow());
      client.release(
          client
              .claim(NoticeNames.mark(job), time.now(), "n", Duration.ofMinutes(1))
              .orElseThrow());
    }
    time.advanceTo(NOW);

    HistoryPruner pruner =
        new HistoryPruner(
            client,
            Optional.of(client),
            history,
            DAY,
            "a",
            time.clock(),
            () -> Set.of("kept", longJob),
            System::nanoTime);
    assertThat(pruner.pruneOnce()).contains(0);
    assertThat(client.list())
        .extracting(LeaseState::name)
        .doesNotContain(NoticeNames.desk("gone"), NoticeNames.mark("gone"))
        .contains(
            NoticeNames.desk("kept"),
            NoticeNames.mark("kept"),
            NoticeNames.desk(longJob),
            NoticeNames.mark(longJob));
  }

  @Test
  void journalStreamsHandedToItKeepWhatTheHistorysKeepKeeps() {
    InMemoryLeaseStore client = leases.client();
    Journal journal = client.backend(history).journal().orElseThrow();
    journal.append("audit", NOW.minus(Duration.ofDays(2)), "{\"old\":1}");
    journal.append("audit", NOW.minus(Duration.ofHours(23)), "{\"young\":1}");
    journal.append("other", NOW.minus(Duration.ofDays(2)), "{\"old\":2}");
    HistoryPruner pruner =
        new HistoryPruner(
                client,
                Optional.empty(),
                history,
                DAY,
                "a",
                Clock.fixed(NOW, ZoneOffset.UTC),
                null,
                System::nanoTime)
            .prunesJournal(Optional.of(journal), List.of("audit"));

    assertThat(pruner.pruneOnce()).contains(0);
    assertThat(journal.recent("audit", 10))
        .extracting(JournalEntry::body)
        .containsExactly("{\"young\":1}");
    assertThat(journal.recent("other", 10)).as("not handed to it").hasSize(1);
  }

  @Test
  void aScratchRecordLeftBehindIsForgottenOnceFreeForItsGrace() {
    VirtualTime time = new VirtualTime(NOW);
    InMemoryLeaseStore client = new InMemoryLeaseStore.Shared(time.clock()).client();
    String scratch = StoreSelfCheck.SCRATCH_PREFIX + "3.hold";
    client.release(client.claim(scratch, time.now(), "c", Duration.ofSeconds(1)).orElseThrow());
    HistoryPruner pruner =
        new HistoryPruner(
            client,
            Optional.of(client),
            history,
            DAY,
            "a",
            time.clock(),
            Set::of,
            System::nanoTime);
    pruner.pruneOnce();
    assertThat(client.inspect(scratch)).as("just used").isPresent();
    time.advance(Duration.ofHours(1));
    pruner.pruneOnce();
    assertThat(client.inspect(scratch)).isEmpty();
  }

  @Test
  void startedItPrunesOnTheTimerFirstAfterAFewSecondsThenASecondPastEveryMinuteUntilClosed() {
    VirtualTime time = new VirtualTime(NOW);
    HistoryPruner pruner =
        new HistoryPruner(
            new InMemoryLeaseStore.Shared(time.clock()).client(),
            Optional.empty(),
            history,
            DAY,
            "a",
            time.clock(),
            null,
            time::nanoTime);
    try {
      seed("old", 3, NOW.minus(Duration.ofDays(2)));
      pruner.start(time, time.workers());
      time.advance(HistoryPruner.FIRST.minusMillis(1));
      assertThat(history.all()).as("before the first pass").hasSize(3);
      time.advance(Duration.ofMillis(1));
      assertThat(history.all()).as("the first pass").isEmpty();

      seed("old", 3, NOW.minus(Duration.ofDays(2)));
      time.advanceTo(Instant.parse("2026-12-01T08:01:00.999Z"));
      assertThat(history.all()).as("before the next minute's pass").hasSize(3);
      time.advanceTo(Instant.parse("2026-12-01T08:01:01Z"));
      assertThat(history.all()).as("a second past the minute").isEmpty();

      seed("old", 3, NOW.minus(Duration.ofDays(2)));
      time.advanceTo(Instant.parse("2026-12-01T08:02:01Z"));
      assertThat(history.all()).as("the minute after").isEmpty();

      seed("old", 3, NOW.minus(Duration.ofDays(2)));
      pruner.close();
      time.advance(Duration.ofMinutes(5));
      assertThat(history.all()).as("closed: the pending pass is called off").hasSize(3);
    } finally {
      time.shutdown();
    }
  }
}
