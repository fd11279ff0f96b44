package dev.leasehold.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * What is particular to etcd's history (the kit is EtcdExecutionLogContractTest): retention,
 * prefixes.
 */
class EtcdExecutionLogTest {
  private static EtcdServers etcd;
  private static final String PREFIX = EtcdServers.freshPrefix();
  private static final Instant T0 = Instant.parse("2026-11-30T06:30:00.123Z");

  private StoreBackend backend;
  private ExecutionLog log;
  private final String job = "job-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdServers.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @BeforeEach
  void open() {
    backend = open(PREFIX, Map.of());
    log = backend.executionLog();
  }

  private static StoreBackend open(String prefix, Map<String, String> options) {
    return new EtcdStoreFactory()
        .open(
            new StoreSettings(
                "etcd", null, etcd.urls(), null, null, prefix, EtcdServers.TIMEOUT, options));
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
  void eachJobKeepsAboutTheConfiguredNumberOfRecords() {
    try (StoreBackend capped = open(PREFIX + "capped/", Map.of("history-max", "10"))) {
      for (int i = 0; i < 400; i++) {
        capped.executionLog().record(record(job, i, Outcome.SUCCEEDED, 0, null));
      }
      List<ExecutionRecord> kept = capped.executionLog().recent(job, 1000);
      assertThat(kept).hasSize(10);
      assertThat(kept.get(0).fence()).isEqualTo(399);
    }
  }

  @Test
  void anotherPrefixSeesNoneOfTheseRecords() {
    log.record(record(job, 1, Outcome.SUCCEEDED, 0, null));
    try (StoreBackend other = open(PREFIX + "other/", Map.of())) {
      assertThat(other.executionLog().recent(job, 10)).isEmpty();
      assertThat(other.executionLog().recent(null, 10)).isEmpty();
    }
  }

  @Test
  void aJobWhoseNameExtendsAnotherSeesOnlyItsOwnRecords() {
    log.record(record(job, 1, Outcome.SUCCEEDED, 0, null));
    log.record(record(job + "x", 2, Outcome.SUCCEEDED, 0, null));
    assertThat(log.recent(job, 10)).extracting(ExecutionRecord::job).containsOnly(job);
  }
}
