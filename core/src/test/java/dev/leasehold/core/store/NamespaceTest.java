package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The namespace rule and mapping, and what runs through a namespaced store besides the jobs: the
 * self-check and the history prune's lease. The isolation itself is the store kit's {@code
 * NamespaceCases}, run on the reference store by the store-kit module and by every store's history
 * kit.
 */
class NamespaceTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(Clock.systemUTC());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();

  private StoreBackend createBackend() {
    return server.client().backend(history);
  }

  @Test
  void theRuleForANamespace() {
    for (String good : List.of("a", "0", "billing", "team-7", "a".repeat(40))) {
      assertThat(Namespace.problem(good)).as(good).isNull();
    }
    for (String bad :
        List.of("", "-a", "A", "billing.eu", "bill_ing", "a/b", "a b", "a".repeat(41), "ü")) {
      assertThat(Namespace.problem(bad)).as(bad).contains("a-z, 0-9 and '-'");
      assertThatThrownBy(() -> Namespace.of(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("namespace ");
    }
    assertThat(Namespace.of(null)).isSameAs(Namespace.NONE);
  }

  @Test
  void namesMapToOneStoredNameAndBack() {
    Namespace billing = Namespace.of("billing");
    assertThat(billing.toStore("nightly-report")).isEqualTo("_leasehold.ns.billing.nightly-report");
    assertThat(billing.fromStore("_leasehold.ns.billing.nightly-report"))
        .contains("nightly-report");
    assertThat(billing.fromStore("nightly-report")).isEmpty();
    assertThat(billing.fromStore("_leasehold.ns.billing-eu.nightly-report")).isEmpty();
    assertThat(billing.fromStore("_leasehold.ns.billing.")).isEmpty();
    assertThat(billing.maxNameLength()).isEqualTo(100 - "_leasehold.ns.billing.".length());
    assertThat(Namespace.of("a".repeat(40)).maxNameLength()).isEqualTo(45);

    assertThat(Namespace.NONE.toStore("nightly-report")).isEqualTo("nightly-report");
    assertThat(Namespace.NONE.fromStore("nightly-report")).contains("nightly-report");
    assertThat(Namespace.NONE.fromStore("_leasehold.history-prune"))
        .contains("_leasehold.history-prune");
    assertThat(Namespace.NONE.fromStore("_leasehold.ns.billing.nightly-report")).isEmpty();
    assertThat(Namespace.NONE.maxNameLength()).isEqualTo(100);
  }

  @Test
  void badNamesAreRefusedWithTheBareName() {
    LeaseStore inBilling = Namespace.of("billing").wrap(createBackend()).leaseStore();
    assertThatThrownBy(() -> inBilling.inspect("a/b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lease name may contain only letters, digits, '.', '_' and '-'");
    assertThatThrownBy(() -> inBilling.inspect(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theSelfCheckRunsOnScratchNamesOfItsOwnNamespace() {
    Namespace billing = Namespace.of("billing");
    StoreSettings settings = StoreSettings.of("memory", "memory://test");
    new StoreSelfCheck(settings, "gateway-1")
        .run(billing.wrap(createBackend()), billing.wrap(createBackend()));

    // the check forgets its scratch names when it ends, through the namespace like every call
    assertThat(server.client().list()).as("nothing left in the store").isEmpty();
    assertThat(server.client().inspect("_leasehold.self-check.0.hold")).isEmpty();
  }

  @Test
  void theHistoryPrunesLeaseIsTakenOncePerMinutePerNamespace() {
    Clock clock = Clock.fixed(T0, java.time.ZoneOffset.UTC);
    var retention = new dev.leasehold.core.job.HistoryRetention(Duration.ofDays(7), 100);
    StoreBackend billing = Namespace.of("billing").wrap(createBackend());
    StoreBackend shipping = Namespace.of("shipping").wrap(createBackend());
    try (HistoryPruner inBilling =
            new HistoryPruner(
                billing.leaseStore(), billing.executionLog(), retention, "n1", clock);
        HistoryPruner inShipping =
            new HistoryPruner(
                shipping.leaseStore(), shipping.executionLog(), retention, "n2", clock);
        HistoryPruner againInBilling =
            new HistoryPruner(
                billing.leaseStore(), billing.executionLog(), retention, "n3", clock)) {
      assertThat(inBilling.pruneOnce()).contains(0);
      assertThat(inShipping.pruneOnce()).contains(0);
      assertThat(againInBilling.pruneOnce()).isEqualTo(Optional.empty());
    }
  }

  @Test
  void readingAllJobsLooksPastOtherNamespacesRecords() {
    ExecutionLog billing = Namespace.of("billing").wrap(createBackend()).executionLog();
    ExecutionLog shipping = Namespace.of("shipping").wrap(createBackend()).executionLog();
    ExecutionRecord mine = record("nightly", T0);
    billing.record(mine);
    for (int i = 1; i <= 300; i++) {
      shipping.record(record("busy", T0.plusSeconds(i)));
    }
    assertThat(billing.recent(null, 5)).containsExactly(mine);
    assertThat(shipping.recent(null, 2))
        .extracting(ExecutionRecord::startedAt)
        .containsExactly(T0.plusSeconds(300), T0.plusSeconds(299));
    assertThat(history.all())
        .extracting(ExecutionRecord::job)
        .contains("_leasehold.ns.billing.nightly", "_leasehold.ns.shipping.busy");
  }

  @Test
  void aRetriedRunKeepsItsAttemptAndOutputThroughTheNamespace() {
    ExecutionLog billing = Namespace.of("billing").wrap(createBackend()).executionLog();
    ExecutionRecord third =
        new ExecutionRecord(
            "nightly",
            T0,
            "n1",
            3,
            TriggerKind.SCHEDULED,
            T0,
            T0.plusSeconds(1),
            Outcome.FAILED,
            4,
            "exit code 4",
            "[stderr] boom",
            3);
    billing.record(third);
    assertThat(history.all()).extracting(ExecutionRecord::attempt).containsExactly(3);
    assertThat(billing.recent("nightly", 1)).containsExactly(third);
  }

  @Test
  void aNamespacedFactoryDescribesItsStoreAsTheStoreItself() {
    StoreFactory described =
        new StoreFactory() {
          @Override
          public Set<String> types() {
            return Set.of("kv");
          }

          @Override
          public String validate(StoreSettings settings) {
            return "bad " + settings.type();
          }

          @Override
          public StoreBackend open(StoreSettings settings) {
            return createBackend();
          }

          @Override
          public List<StoreOption<?>> options() {
            return List.of(StoreOption.positiveWholeNumber("shards", 4, "how many shards"));
          }

          @Override
          public String defaultType() {
            return "kv";
          }

          @Override
          public String defaultUrl(String type) {
            return "kv:" + type;
          }

          @Override
          public Map<String, String> logLevels() {
            return Map.of("com.example.kv", "WARN");
          }

          @Override
          public Set<String> driverPackages() {
            return Set.of("com.example.kv");
          }

          @Override
          public Duration selfCheckTtl(StoreSettings settings) {
            return Duration.ofMillis(123);
          }
        };
    StoreFactory wrapped = Namespace.of("billing").wrap(described);

    assertThat(wrapped.types()).isEqualTo(described.types());
    assertThat(wrapped.options()).isEqualTo(described.options());
    assertThat(wrapped.defaultType()).isEqualTo("kv");
    assertThat(wrapped.defaultUrl("kv")).isEqualTo("kv:kv");
    assertThat(wrapped.logLevels()).isEqualTo(described.logLevels());
    assertThat(wrapped.driverPackages()).isEqualTo(described.driverPackages());
    assertThat(wrapped.selfCheckTtl(null)).isEqualTo(Duration.ofMillis(123));
    // every method a store factory has, a namespaced one answers by asking the store's own
    for (Method method : StoreFactory.class.getMethods()) {
      assertThat(
              Arrays.stream(wrapped.getClass().getDeclaredMethods())
                  .anyMatch(
                      own ->
                          own.getName().equals(method.getName())
                              && Arrays.equals(
                                  own.getParameterTypes(), method.getParameterTypes())))
          .as("a namespaced factory delegates %s", method.getName())
          .isTrue();
    }
  }

  private static ExecutionRecord record(String job, Instant start) {
    return new ExecutionRecord(
        job,
        start,
        "n1",
        1,
        TriggerKind.SCHEDULED,
        start,
        start.plusSeconds(1),
        Outcome.SUCCEEDED,
        0,
        null);
  }
}
