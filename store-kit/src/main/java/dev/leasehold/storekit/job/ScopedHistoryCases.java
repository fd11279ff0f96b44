package dev.leasehold.storekit.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.store.StoreBackend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * History cases for the stores that keep it under a key prefix and cap it per job (etcd, ZooKeeper,
 * Redis): the cap set by the {@code history-max} option holds, a deployment under another prefix
 * sees none of these records, and a job whose name extends another's is not mixed with it. A
 * store's test class says how to open a backend under a scope of its test prefix, and how far above
 * the cap its trimming may lag.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ScopedHistoryCases {
  private static final Instant T0 = Instant.parse("2026-11-30T06:30:00.123Z");

  private final List<StoreBackend> opened = new ArrayList<>();
  protected ExecutionLog log;
  protected final String job = "job-" + UUID.randomUUID().toString().substring(0, 8);

  /**
   * A new backend under the test's prefix extended by {@code scope} (the test's own prefix when
   * scope is empty), with the given store options. Closed by the cases after each test.
   */
  protected abstract StoreBackend openScoped(String scope, Map<String, String> options);

  /** How many records above the cap the store may still hold (its trimming is approximate). */
  protected abstract int capSlack();

  protected final StoreBackend open(String scope, Map<String, String> options) {
    StoreBackend backend = openScoped(scope, options);
    opened.add(backend);
    return backend;
  }

  @BeforeEach
  final void openLog() {
    log = open("", Map.of()).executionLog();
  }

  @AfterEach
  final void closeBackends() {
    opened.forEach(StoreBackend::close);
    opened.clear();
  }

  protected static ExecutionRecord record(String job, int i, Outcome outcome) {
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
        outcome == Outcome.SUCCEEDED ? 0 : 1,
        null);
  }

  @Test
  void eachJobKeepsAboutTheConfiguredNumberOfRecords() {
    ExecutionLog capped = open("capped", Map.of("history-max", "10")).executionLog();
    for (int i = 0; i < 400; i++) {
      capped.record(record(job, i, Outcome.SUCCEEDED));
    }
    List<ExecutionRecord> kept = capped.recent(job, 1000);
    assertThat(kept.size()).isBetween(10, 10 + capSlack());
    assertThat(kept.get(0).fence()).isEqualTo(399);
  }

  @Test
  void anotherPrefixSeesNoneOfTheseRecords() {
    log.record(record(job, 1, Outcome.SUCCEEDED));
    ExecutionLog other = open("other", Map.of()).executionLog();
    assertThat(other.recent(job, 10)).isEmpty();
    assertThat(other.recent(null, 10)).isEmpty();
  }

  @Test
  void aJobWhoseNameExtendsAnotherSeesOnlyItsOwnRecords() {
    log.record(record(job, 1, Outcome.SUCCEEDED));
    log.record(record(job + "x", 2, Outcome.SUCCEEDED));
    assertThat(log.recent(job, 10)).extracting(ExecutionRecord::job).containsOnly(job);
  }
}
