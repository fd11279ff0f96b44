package dev.leasehold.guice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two "replicas" (two injectors, each with its own store client) share one real store (H2 in memory
 * through the SQL store): a cluster-exclusive method runs on one of them only.
 */
class ClusterExclusiveTest {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static volatile CountDownLatch entered;
  private static volatile CountDownLatch proceed;

  /** A service as users write one; Guice subclasses it to intercept the annotated methods. */
  public static class Backup {
    @ClusterExclusive(name = "nightly-backup", ttl = "30s")
    public String run() throws InterruptedException {
      RUNS.incrementAndGet();
      entered.countDown();
      proceed.await(60, TimeUnit.SECONDS);
      return "done";
    }

    @ClusterExclusive(name = "short-lease", ttl = "3s") // renewed every 1 s
    public void waitForever() throws InterruptedException {
      entered.countDown();
      new CountDownLatch(1).await();
    }

    @ClusterExclusive(name = "digest")
    public boolean send() {
      RUNS.incrementAndGet();
      return true;
    }

    @ClusterExclusive(name = "digest")
    public Optional<String> summary() {
      return Optional.of("summary");
    }

    @ClusterExclusive(name = "digest")
    public int count() {
      return 7;
    }
  }

  private final List<StoreBackend> backends = new ArrayList<>();
  private String url;

  @BeforeEach
  void freshDatabase() {
    url = "jdbc:h2:mem:exclusive-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    RUNS.set(0);
    entered = new CountDownLatch(1);
    proceed = new CountDownLatch(1);
  }

  @AfterEach
  void close() {
    backends.forEach(StoreBackend::close);
  }

  private LeaseStore newClient() {
    StoreSettings settings = StoreSettings.of("h2", url);
    StoreFactory factory =
        ServiceLoader.load(StoreFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(f -> f.types().contains("h2"))
            .findFirst()
            .orElseThrow();
    StoreBackend backend = factory.open(settings);
    backends.add(backend);
    return backend.leaseStore();
  }

  private Backup replica(String node) {
    return replica(node, newClient());
  }

  private Backup replica(String node, LeaseStore store) {
    Injector injector =
        Guice.createInjector(
            new ClusterExclusiveModule(node),
            binder -> binder.bind(LeaseStore.class).toInstance(store));
    return injector.getInstance(Backup.class);
  }

  @Test
  void onlyOneReplicaRunsTheMethodWhileItRuns() throws Exception {
    Backup a = replica("node-a");
    Backup b = replica("node-b");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = pool.submit(a::run);
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

      String second = b.run(); // the lease is held by node-a: skipped, returns null

      proceed.countDown();
      assertThat(first.get(60, TimeUnit.SECONDS)).isEqualTo("done");
      assertThat(second).isNull();
      assertThat(RUNS.get()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void afterTheHolderReleasedAnotherReplicaRunsAgain() throws Exception {
    proceed.countDown();
    Backup a = replica("node-a");
    Backup b = replica("node-b");

    assertThat(a.run()).isEqualTo("done");
    assertThat(b.run()).isEqualTo("done");
    assertThat(RUNS.get()).isEqualTo(2);
  }

  @Test
  void skippedCallsReturnFalseEmptyOrZeroByReturnType() throws Exception {
    LeaseStore other = newClient();
    Backup a = replica("node-a");
    Lease held = other.acquire("digest", "node-z", Duration.ofMinutes(5)).orElseThrow();

    assertThat(a.send()).isFalse();
    assertThat(a.summary()).isEmpty();
    assertThat(a.count()).isZero();
    assertThat(RUNS.get()).isZero();

    other.release(held);
    assertThat(a.send()).isTrue();
    assertThat(a.summary()).contains("summary");
    assertThat(a.count()).isEqualTo(7);
  }

  @Test
  void aMethodWhoseLeaseIsLostIsInterrupted() throws Exception {
    Backup a = replica("node-a");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> call =
          pool.submit(
              () -> {
                a.waitForever();
                return null;
              });
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

      // the lease row disappears behind the holder's back: the next renewal fails
      try (Connection db = DriverManager.getConnection(url);
          Statement sql = db.createStatement()) {
        assertThat(sql.executeUpdate("DELETE FROM task_lock WHERE lock_key = 'short-lease'"))
            .isEqualTo(1);
      }

      assertThatThrownBy(() -> call.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InterruptedException.class);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The store renews the lease but its answer does not come back (held at a gate, like a connection
   * that stalls): the method is interrupted when the lease's validity, counted from the last
   * confirmed send, has passed, while the renewal call still hangs (G5).
   */
  @Test
  void aMethodIsInterruptedWhenNoRenewalAnswerComesBackInTime() throws Exception {
    CountDownLatch answers = new CountDownLatch(1);
    Backup a = replica("node-a", new Stalling(newClient(), answers, false));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> call =
          pool.submit(
              () -> {
                a.waitForever();
                return null;
              });
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

      assertThatThrownBy(() -> call.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InterruptedException.class);
      assertThat(answers.getCount()).as("the renewal was still hanging").isEqualTo(1);
    } finally {
      answers.countDown();
      pool.shutdownNow();
    }
  }

  /** Every renewal fails with a store error: not a renewal, so the lease runs out and is lost. */
  @Test
  void aMethodIsInterruptedWhenRenewalsKeepFailing() throws Exception {
    Stalling store = new Stalling(newClient(), new CountDownLatch(0), true);
    Backup a = replica("node-a", store);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> call =
          pool.submit(
              () -> {
                a.waitForever();
                return null;
              });
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

      assertThatThrownBy(() -> call.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InterruptedException.class);
      assertThat(store.failures.get()).isPositive();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theLeaseIsReleasedAfterTheMethodReturns() throws Exception {
    proceed.countDown();
    LeaseStore observer = newClient();
    Backup a = replica("node-a");

    a.run();

    assertThat(observer.inspect("nightly-backup"))
        .hasValueSatisfying(
            s -> {
              assertThat(s.held()).isFalse();
              assertThat(s.fence()).isEqualTo(1);
            });
  }

  /**
   * A real store behind a connection at fault: renewals reach the store but their answers wait at
   * {@code answers}, or every renewal fails with a store error. Everything else passes through.
   */
  static final class Stalling implements LeaseStore {
    private final LeaseStore store;
    private final CountDownLatch answers;
    private final boolean fail;
    final AtomicInteger failures = new AtomicInteger();

    Stalling(LeaseStore store, CountDownLatch answers, boolean fail) {
      this.store = store;
      this.answers = answers;
      this.fail = fail;
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      if (fail) {
        failures.incrementAndGet();
        throw new LeaseStoreException("connection reset");
      }
      boolean renewed = store.renew(lease, ttl);
      try {
        answers.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LeaseStoreException("interrupted");
      }
      return renewed;
    }

    @Override
    public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
      return store.claim(name, firing, holder, ttl);
    }

    @Override
    public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
      return store.tryClaim(name, firing, holder, ttl);
    }

    @Override
    public Optional<Lease> acquire(String name, String holder, Duration ttl) {
      return store.acquire(name, holder, ttl);
    }

    @Override
    public boolean release(Lease lease) {
      return store.release(lease);
    }

    @Override
    public Optional<LeaseState> inspect(String name) {
      return store.inspect(name);
    }

    @Override
    public List<LeaseState> list() {
      return store.list();
    }
  }
}
