package dev.leasehold.app.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What {@code run} does beside the start-up self-check, and what a failure of either does. */
class StoreOpenerTest {
  private static final Duration LIMIT = Duration.ofSeconds(20);

  private final String name = "opener-" + UUID.randomUUID();
  private final MemoryStoreType.Server server = MemoryStoreType.server(name);
  private final StoreSettings settings = StoreSettings.of("memory", "memory:" + name);
  private final MemoryStoreType.Factory factory = new MemoryStoreType.Factory();

  @Test
  void aOneShotCommandWaitsAtLeastTheDefaultCommandTimeoutAndKeepsEverythingElse() {
    StoreSettings short1s =
        new StoreSettings(
            "mariadb",
            "jdbc:mariadb://127.0.0.1:3306/test",
            List.of(),
            "root",
            "pw",
            "p:",
            Duration.ofSeconds(1),
            java.util.Map.of("a", "b"));
    StoreSettings patient = StoreOpener.patient(short1s);
    assertThat(patient.commandTimeout())
        .isEqualTo(dev.leasehold.core.lease.LeaseDefaults.COMMAND_TIMEOUT);
    assertThat(patient)
        .usingRecursiveComparison()
        .ignoringFields("commandTimeout")
        .isEqualTo(short1s);

    StoreSettings long30s =
        new StoreSettings(
            "mariadb",
            null,
            List.of(),
            null,
            null,
            null,
            Duration.ofSeconds(30),
            java.util.Map.of());
    assertThat(StoreOpener.patient(long30s)).isSameAs(long30s);
  }

  @Test
  void besideRunsWhileTheSelfCheckHoldsItsScratchLease() {
    List<Boolean> sawTheCheck = new ArrayList<>();

    StoreBackend backend =
        StoreOpener.openChecked(
            factory,
            settings,
            "gateway-1",
            store -> {
              Poll.until("the self-check claimed a scratch name", LIMIT, () -> checking(store));
              sawTheCheck.add(true);
            });

    assertThat(sawTheCheck).containsExactly(true);
    assertThat(backend.leaseStore()).isNotNull();
  }

  @Test
  void aFailedCheckIsRetriedAndBesideRunsAgainWithTheNewStore() throws Exception {
    server.setForgetsTheWatermark(true);
    AtomicInteger besides = new AtomicInteger();
    CountDownLatch shutdown = new CountDownLatch(1);
    List<Optional<StoreBackend>> result = new ArrayList<>();
    Thread opener =
        new Thread(
            () ->
                result.add(
                    StoreOpener.openWithRetry(
                        factory, settings, "gateway-1", shutdown, s -> besides.incrementAndGet())));
    opener.start();
    Poll.until(
        "the check failed once", LIMIT, () -> besides.get() >= 1 && server.openAttempts() >= 2);
    int failedAttempts = server.openAttempts() / 2; // two clients an attempt
    server.setForgetsTheWatermark(false);
    opener.join(LIMIT.toMillis());

    assertThat(result).hasSize(1);
    assertThat(result.get(0)).isPresent();
    assertThat(besides.get()).isGreaterThan(failedAttempts).isEqualTo(server.openAttempts() / 2);
  }

  @Test
  void aFailureBesideIsThrownAsItIsOnceTheCheckEndedAndNotRetried() {
    IllegalStateException boom = new IllegalStateException("the injector could not be built");
    CountDownLatch shutdown = new CountDownLatch(1);

    assertThatThrownBy(
            () ->
                StoreOpener.openWithRetry(
                    factory,
                    settings,
                    "gateway-1",
                    shutdown,
                    store -> {
                      throw boom;
                    }))
        .isSameAs(boom);
    assertThat(server.openAttempts())
        .as("one attempt: the store and the check's client")
        .isEqualTo(2);
    // the check ran to its end: it forgot its scratch names
    assertThat(checking(factory.open(settings))).isFalse();
  }

  /** Whether a self-check holds one of its scratch names now. */
  private static boolean checking(StoreBackend store) {
    LeaseStore leases = store.leaseStore();
    for (int slot = 0; slot < StoreSelfCheck.SLOTS; slot++) {
      for (String part : List.of(".hold", ".expiry")) {
        String scratch = StoreSelfCheck.SCRATCH_PREFIX + slot + part;
        if (leases.inspect(scratch).map(s -> s.held()).orElse(false)) {
          return true;
        }
      }
    }
    return false;
  }
}
