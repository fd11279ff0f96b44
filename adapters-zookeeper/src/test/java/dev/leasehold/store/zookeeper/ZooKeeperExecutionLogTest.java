package dev.leasehold.store.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** History as sequential nodes on a real ZooKeeper server started for this class. */
class ZooKeeperExecutionLogTest {
  private static ZooKeeperServers zookeeper;
  private static final String PREFIX = ZooKeeperServers.freshPrefix();
  private static final Instant T0 = Instant.parse("2026-11-30T06:30:00.123Z");

  private StoreBackend backend;
  private ExecutionLog log;
  private final String job = "job-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startZooKeeper() {
    zookeeper = ZooKeeperServers.start(1);
  }

  @AfterAll
  static void stopZooKeeper() {
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @BeforeEach
  void open() {
    backend = open(PREFIX, Map.of());
    log = backend.executionLog();
  }

  private static StoreBackend open(String prefix, Map<String, String> options) {
    return new ZooKeeperStoreFactory()
        .open(
            new StoreSettings(
                "zookeeper",
                zookeeper.url(""),
                List.of(),
                null,
                null,
                prefix,
                ZooKeeperServers.TIMEOUT,
                options));
  }

  @AfterEach
  void close() {
    backend.close();
  }

  private ExecutionRecord record(String job, int i, Outcome outcome, Integer exit, String detail) {
    Instant fire = T0.plusSeconds(i);
    return new ExecutionRecord(
        job,
        fire,
        "node-" + i,
        i,
        TriggerKind.SCHEDULED,
        fire,
        fire.plusMillis(5),
        outcome,
        exit,
        detail);
  }

  @Test
  void recordsComeBackNewestFirstWithEveryField() {
    ExecutionRecord failed = record(job, 1, Outcome.FAILED, 3, "exit 3: disk full");
    Instant later = T0.plusSeconds(2);
    ExecutionRecord manual =
        new ExecutionRecord(
            job,
            later,
            "node-m",
            7,
            TriggerKind.MANUAL,
            later,
            later,
            Outcome.SUCCEEDED,
            null,
            null);
    log.record(failed);
    log.record(manual);
    assertThat(log.recent(job, 10)).containsExactly(manual, failed);
    assertThat(log.recent(job, 1)).containsExactly(manual);
  }

  @Test
  void recentForAllJobsMergesTheStreamsNewestFirst() {
    String other = job + "-other";
    log.record(record(job, 1, Outcome.SUCCEEDED, 0, null));
    log.record(record(other, 2, Outcome.LEASE_LOST, null, null));
    log.record(record(job, 3, Outcome.TIMED_OUT, null, "killed after 10m"));
    List<ExecutionRecord> all = log.recent(null, 100);
    assertThat(all)
        .filteredOn(r -> r.job().startsWith(job))
        .extracting(ExecutionRecord::fence)
        .containsExactly(3L, 2L, 1L);
    assertThat(log.recent(null, 2)).hasSize(2);
  }

  @Test
  void eachJobKeepsAboutTheConfiguredNumberOfRecords() {
    try (StoreBackend capped = open(PREFIX + "/capped", Map.of("history-max", "10"))) {
      for (int i = 0; i < 400; i++) {
        capped.executionLog().record(record(job, i, Outcome.SUCCEEDED, 0, null));
      }
      List<ExecutionRecord> kept = capped.executionLog().recent(job, 1000);
      assertThat(kept.size()).isBetween(10, 20);
      assertThat(kept.get(0).fence()).isEqualTo(399);
    }
  }

  @Test
  void anotherPrefixSeesNoneOfTheseRecords() {
    log.record(record(job, 1, Outcome.SUCCEEDED, 0, null));
    try (StoreBackend other = open(PREFIX + "/other", Map.of())) {
      assertThat(other.executionLog().recent(job, 10)).isEmpty();
      assertThat(other.executionLog().recent(null, 10)).isEmpty();
    }
  }

  @Test
  void aLongDetailAndEveryOutcomeSurviveTheRoundTrip() {
    for (Outcome outcome : Outcome.values()) {
      log.record(record(job, outcome.ordinal(), outcome, null, "ü".repeat(600)));
    }
    List<ExecutionRecord> back = log.recent(job, 100);
    assertThat(back)
        .extracting(ExecutionRecord::outcome)
        .containsExactlyInAnyOrder(Outcome.values());
    assertThat(back.get(0).detail()).hasSize(ExecutionRecord.MAX_DETAIL);
  }

  @Test
  void aJobWhoseNameExtendsAnotherSeesOnlyItsOwnRecords() {
    log.record(record(job, 1, Outcome.SUCCEEDED, 0, null));
    log.record(record(job + "x", 2, Outcome.SUCCEEDED, 0, null));
    assertThat(log.recent(job, 10)).extracting(ExecutionRecord::job).containsOnly(job);
  }

  @Test
  void badArgumentsAreRejected() {
    assertThatThrownBy(() -> log.recent(job, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> log.recent("bad name", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
