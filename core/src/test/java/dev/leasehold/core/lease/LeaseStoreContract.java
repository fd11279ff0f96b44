package dev.leasehold.core.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The specification of a {@link LeaseStore}: every store passes this suite against a real server. A
 * store's test class is little more than a constructor:
 *
 * <pre>{@code
 * class PostgresLeaseStoreContractTest extends LeaseStoreContract {
 *   protected LeaseStore newStore() { return ...; }  // a new, independent client each call
 * }
 * }</pre>
 *
 * <p>{@link #newStore()} must return an independent client (its own connection or pool) on the same
 * database each time, so races between several replicas are tested, not only between threads. Each
 * test uses fresh random lease names, so stores need no cleaning between tests.
 *
 * <p>Expiry is real time on the store's clock: tests that wait for a lease to expire use short TTLs
 * and poll for the expected state with a generous limit; nothing asserts a duration.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LeaseStoreContract {
  /** Longer than any test takes: a lease with this TTL never expires during a test. */
  protected static final Duration LONG = Duration.ofMinutes(5);

  /** Short enough to wait for; long enough that a claim and its check fit in it. */
  protected static final Duration SHORT = Duration.ofMillis(400);

  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final Instant F3 = F2.plusSeconds(60);

  private final List<LeaseStore> opened = new ArrayList<>();
  protected LeaseStore store;

  /** A new, independent client on the same database. Closed by the kit after each test. */
  protected abstract LeaseStore createStore();

  protected final LeaseStore newStore() {
    LeaseStore s = createStore();
    opened.add(s);
    return s;
  }

  @BeforeEach
  void openStore() {
    store = newStore();
  }

  @AfterEach
  void closeStores() {
    for (LeaseStore s : opened) {
      s.close();
    }
    opened.clear();
  }

  /** A name no other test (or earlier run against the same database) has used. */
  protected static String freshName() {
    return "contract-" + UUID.randomUUID().toString().substring(0, 13);
  }

  /** Polls {@code condition} until it holds; fails after {@code limit}. */
  protected static void eventually(Duration limit, BooleanSupplier condition) {
    long end = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition did not hold within " + limit);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  private static final Duration EXPIRY_LIMIT = Duration.ofSeconds(15);

  @Test
  void aFreshNameCanBeClaimed() {
    String name = freshName();
    Optional<Lease> lease = store.claim(name, F1, "node-a", LONG);
    assertThat(lease).isPresent();
    assertThat(lease.get().name()).isEqualTo(name);
    assertThat(lease.get().holder()).isEqualTo("node-a");
    assertThat(lease.get().token()).isNotBlank();
    assertThat(lease.get().fence()).isPositive();
    assertThat(lease.get().ttl()).isEqualTo(LONG);
  }

  @Test
  void aHeldFiringCannotBeClaimedAgain() {
    String name = freshName();
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
    assertThat(store.claim(name, F1, "node-b", LONG)).isEmpty();
    assertThat(newStore().claim(name, F1, "node-b", LONG)).isEmpty();
  }

  @Test
  void aNewerFiringIsRefusedWhileThePreviousRunStillHoldsTheLease() {
    String name = freshName();
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isEmpty();
  }

  @Test
  void aLateReplicaCannotClaimAFiringAlreadyRun() {
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    assertThat(newStore().claim(name, F1, "node-late", LONG)).isEmpty();
  }

  @Test
  void anOlderFiringIsRefusedAfterANewerOneRan() {
    String name = freshName();
    Lease lease = store.claim(name, F2, "node-a", LONG).orElseThrow();
    store.release(lease);
    assertThat(store.claim(name, F1, "node-b", LONG)).isEmpty();
  }

  @Test
  void theNextFiringCanBeClaimedOnceTheLeaseIsReleased() {
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    assertThat(newStore().claim(name, F2, "node-b", LONG)).isPresent();
  }

  @Test
  void firingsAreComparedAtMillisecondPrecision() {
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    assertThat(store.claim(name, F1.plusNanos(999_999), "node-a", LONG))
        .as("same millisecond as the watermark")
        .isEmpty();
    assertThat(store.claim(name, F1.plusMillis(1), "node-a", LONG)).isPresent();
  }

  @Test
  void firingsBeforeTheEpochAndFarInTheFutureWork() {
    String name = freshName();
    store.release(store.claim(name, Instant.parse("1969-07-20T20:17:00Z"), "a", LONG).get());
    assertThat(store.claim(name, Instant.parse("2100-01-01T00:00:00Z"), "a", LONG)).isPresent();
  }

  @Test
  void anExpiredLeaseCanBeTakenForTheNextFiring() {
    String name = freshName();
    assertThat(store.claim(name, F1, "node-dead", SHORT)).isPresent();
    LeaseStore other = newStore();
    eventually(EXPIRY_LIMIT, () -> other.claim(name, F2, "node-b", LONG).isPresent());
  }

  @Test
  void theWatermarkSurvivesExpiry() {
    String name = freshName();
    assertThat(store.claim(name, F2, "node-dead", SHORT)).isPresent();
    LeaseStore other = newStore();
    eventually(EXPIRY_LIMIT, () -> other.acquire(name, "probe", SHORT).isPresent());
    eventually(EXPIRY_LIMIT, () -> other.inspect(name).map(s -> !s.held()).orElse(false));
    assertThat(other.claim(name, F2, "node-b", LONG)).isEmpty();
    assertThat(other.claim(name, F1, "node-b", LONG)).isEmpty();
    assertThat(other.claim(name, F3, "node-b", LONG)).isPresent();
  }

  @Test
  void aLiveLeaseIsNotTakenBeforeItsTtl() {
    String name = freshName();
    assertThat(store.acquire(name, "node-a", Duration.ofSeconds(30))).isPresent();
    LeaseStore other = newStore();
    for (int i = 0; i < 5; i++) {
      assertThat(other.acquire(name, "node-b", LONG)).isEmpty();
      assertThat(other.claim(name, F3, "node-b", LONG)).isEmpty();
    }
  }

  @Test
  void anExpiredLeaseCannotBeRenewedOrReleasedAfterSomeoneElseTookIt() {
    String name = freshName();
    Lease stale = store.acquire(name, "node-paused", SHORT).orElseThrow();
    LeaseStore other = newStore();
    Lease[] taken = new Lease[1];
    eventually(
        EXPIRY_LIMIT,
        () -> {
          taken[0] = other.acquire(name, "node-b", LONG).orElse(null);
          return taken[0] != null;
        });
    assertThat(store.renew(stale, LONG)).isFalse();
    assertThat(store.release(stale)).isFalse();
    assertThat(other.inspect(name).orElseThrow().currentHolder()).contains("node-b");
    assertThat(other.renew(taken[0], LONG)).isTrue();
  }

  @Test
  void anExpiredLeaseCannotBeRevivedByRenew() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", SHORT).orElseThrow();
    eventually(EXPIRY_LIMIT, () -> store.inspect(name).map(s -> !s.held()).orElse(false));
    assertThat(store.renew(lease, LONG)).isFalse();
  }

  @Test
  void renewKeepsALeaseAliveBeyondItsFirstTtl() throws InterruptedException {
    String name = freshName();
    Duration ttl = Duration.ofMillis(1500);
    Lease lease = store.acquire(name, "node-a", ttl).orElseThrow();
    LeaseStore other = newStore();
    long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
    while (System.nanoTime() < end) {
      assertThat(store.renew(lease, ttl)).isTrue();
      assertThat(other.acquire(name, "node-b", LONG)).isEmpty();
      Thread.sleep(ttl.toMillis() / 5);
    }
  }

  @Test
  void renewWithTheRightTokenExtendsTheLease() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", Duration.ofSeconds(10)).orElseThrow();
    Instant before = store.inspect(name).orElseThrow().leaseUntil();
    assertThat(store.renew(lease, Duration.ofMinutes(10))).isTrue();
    Instant after = store.inspect(name).orElseThrow().leaseUntil();
    assertThat(after).isAfter(before.plus(Duration.ofMinutes(9)));
  }

  @Test
  void renewAndReleaseWithAWrongTokenAreRefused() {
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    Lease forged = new Lease(name, "node-a", LeaseArguments.newToken(), lease.fence(), LONG, null);
    assertThat(newStore().renew(forged, LONG)).isFalse();
    assertThat(newStore().release(forged)).isFalse();
    assertThat(store.inspect(name).orElseThrow().currentHolder()).contains("node-a");
    assertThat(store.renew(lease, LONG)).isTrue();
  }

  @Test
  void anotherClientWithTheTokenMayRenewAndRelease() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", LONG).orElseThrow();
    LeaseStore other = newStore();
    assertThat(other.renew(lease, LONG)).isTrue();
    assertThat(other.release(lease)).isTrue();
  }

  @Test
  void releaseFreesTheLeaseButKeepsWatermarkAndFence() {
    String name = freshName();
    Lease lease = store.claim(name, F2, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.held()).isFalse();
    assertThat(state.currentHolder()).isEmpty();
    assertThat(state.lastFire()).isEqualTo(F2);
    assertThat(state.fence()).isEqualTo(lease.fence());
    assertThat(store.acquire(name, "node-b", LONG)).isPresent();
  }

  @Test
  void releasingTwiceIsRefusedTheSecondTime() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", LONG).orElseThrow();
    assertThat(store.release(lease)).isTrue();
    assertThat(store.release(lease)).isFalse();
    assertThat(store.renew(lease, LONG)).isFalse();
  }

  @Test
  void aReleasedTokenCannotReleaseTheNextHolder() {
    String name = freshName();
    Lease first = store.acquire(name, "node-a", LONG).orElseThrow();
    store.release(first);
    Lease second = newStore().acquire(name, "node-b", LONG).orElseThrow();
    assertThat(store.release(first)).isFalse();
    assertThat(store.inspect(name).orElseThrow().currentHolder()).contains("node-b");
    assertThat(store.release(second)).isTrue();
  }

  @Test
  void renewAndReleaseOfANeverLeasedNameAreRefused() {
    Lease ghost = new Lease(freshName(), "node-a", LeaseArguments.newToken(), 1, LONG, null);
    assertThat(store.renew(ghost, LONG)).isFalse();
    assertThat(store.release(ghost)).isFalse();
  }

  @Test
  void acquireIsExclusiveWithClaim() {
    String name = freshName();
    Lease claimed = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(newStore().acquire(name, "node-b", LONG)).isEmpty();
    store.release(claimed);
    Lease acquired = newStore().acquire(name, "node-b", LONG).orElseThrow();
    assertThat(store.claim(name, F2, "node-a", LONG)).isEmpty();
    store.release(acquired);
    assertThat(store.claim(name, F2, "node-a", LONG)).isPresent();
  }

  @Test
  void acquireDoesNotMoveTheWatermark() {
    String name = freshName();
    store.release(store.claim(name, F1, "node-a", LONG).orElseThrow());
    store.release(store.acquire(name, "manual", LONG).orElseThrow());
    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.lastFire()).isEqualTo(F1);
    assertThat(store.claim(name, F1, "node-a", LONG)).isEmpty();
    assertThat(store.claim(name, F2, "node-a", LONG)).isPresent();
  }

  @Test
  void acquireOnAFreshNameLeavesNoWatermark() {
    String name = freshName();
    store.release(store.acquire(name, "manual", LONG).orElseThrow());
    assertThat(store.inspect(name).orElseThrow().lastFire()).isNull();
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
  }

  @Test
  void fencesStrictlyIncreaseAcrossClaimsAcquisitionsAndClients() {
    String name = freshName();
    List<LeaseStore> clients = List.of(store, newStore(), newStore());
    long last = 0;
    Instant firing = F1;
    for (int i = 0; i < 12; i++) {
      LeaseStore client = clients.get(i % clients.size());
      Lease lease =
          i % 2 == 0
              ? client.claim(name, firing, "node-" + i, LONG).orElseThrow()
              : client.acquire(name, "node-" + i, LONG).orElseThrow();
      assertThat(lease.fence()).isGreaterThan(last);
      last = lease.fence();
      assertThat(client.inspect(name).orElseThrow().fence()).isEqualTo(last);
      assertThat(client.release(lease)).isTrue();
      firing = firing.plusSeconds(1);
    }
  }

  @Test
  void fencesKeepRisingAfterExpiry() {
    String name = freshName();
    long first = store.acquire(name, "node-dead", SHORT).orElseThrow().fence();
    LeaseStore other = newStore();
    long[] next = new long[1];
    eventually(
        EXPIRY_LIMIT,
        () -> {
          next[0] = other.acquire(name, "node-b", LONG).map(Lease::fence).orElse(-1L);
          return next[0] != -1;
        });
    assertThat(next[0]).isGreaterThan(first);
  }

  @Test
  void aRefusedClaimDoesNotConsumeAFence() {
    String name = freshName();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(store.claim(name, F2, "node-b", LONG)).isEmpty();
    assertThat(store.acquire(name, "node-b", LONG)).isEmpty();
    assertThat(store.inspect(name).orElseThrow().fence()).isEqualTo(lease.fence());
  }

  @Test
  void anUnknownNameHasNoState() {
    assertThat(store.inspect(freshName())).isEmpty();
  }

  @Test
  void inspectShowsHolderExpiryWatermarkAndFence() {
    String name = freshName();
    Lease lease = store.claim(name, F2, "node-a", LONG).orElseThrow();
    LeaseState state = newStore().inspect(name).orElseThrow();
    assertThat(state.name()).isEqualTo(name);
    assertThat(state.held()).isTrue();
    assertThat(state.currentHolder()).contains("node-a");
    assertThat(state.lastFire()).isEqualTo(F2);
    assertThat(state.fence()).isEqualTo(lease.fence());
    assertThat(state.leaseUntil()).isNotNull();
  }

  @Test
  void listShowsEveryLeasedName() {
    String a = freshName();
    String b = freshName();
    store.claim(a, F1, "node-a", LONG).orElseThrow();
    store.release(store.acquire(b, "node-b", LONG).orElseThrow());
    List<LeaseState> all = newStore().list();
    assertThat(all).extracting(LeaseState::name).contains(a, b);
    LeaseState stateA = all.stream().filter(s -> s.name().equals(a)).findFirst().orElseThrow();
    LeaseState stateB = all.stream().filter(s -> s.name().equals(b)).findFirst().orElseThrow();
    assertThat(stateA.held()).isTrue();
    assertThat(stateB.held()).isFalse();
    List<String> names = all.stream().map(LeaseState::name).toList();
    assertThat(names).isSorted();
  }

  @Test
  void everyAllowedCharacterWorks() {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
    String name = alphabet + UUID.randomUUID().toString().substring(0, 8);
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(store.inspect(name).orElseThrow().name()).isEqualTo(name);
    assertThat(store.release(lease)).isTrue();
  }

  @Test
  void aNameOfTheMaximumLengthWorks() {
    String prefix = UUID.randomUUID().toString().replace("-", "");
    String name = prefix + "x".repeat(LeaseNames.MAX_LENGTH - prefix.length());
    assertThat(store.claim(name, F1, "node-a", LONG)).isPresent();
  }

  @Test
  void namesDifferingOnlyInCaseAreDistinctLeases() {
    String base = freshName();
    assertThat(store.acquire(base.toLowerCase() + "-abc", "a", LONG)).isPresent();
    assertThat(store.acquire(base.toLowerCase() + "-ABC", "b", LONG)).isPresent();
  }

  private final Lease someLease =
      new Lease("some-name", "node-a", LeaseArguments.newToken(), 1, LONG, null);

  @Test
  void invalidNamesAreRejected() {
    for (String bad :
        new String[] {
          null,
          "",
          " ",
          "has space",
          "slash/name",
          "colon:name",
          "{tag}",
          "star*",
          "ümlaut",
          "x".repeat(LeaseNames.MAX_LENGTH + 1)
        }) {
      assertThatThrownBy(() -> store.claim(bad, F1, "node-a", LONG))
          .as("claim(%s)", bad)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.acquire(bad, "node-a", LONG))
          .as("acquire(%s)", bad)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.inspect(bad))
          .as("inspect(%s)", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void nullOrBlankHoldersAreRejected() {
    for (String bad : new String[] {null, "", "   "}) {
      assertThatThrownBy(() -> store.claim(freshName(), F1, bad, LONG))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.acquire(freshName(), bad, LONG))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void missingZeroOrNegativeTtlsAreRejected() {
    for (Duration bad :
        new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(10)}) {
      assertThatThrownBy(() -> store.claim(freshName(), F1, "node-a", bad))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.acquire(freshName(), "node-a", bad))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.renew(someLease, bad))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aMissingFiringOrLeaseIsRejected() {
    assertThatThrownBy(() -> store.claim(freshName(), null, "node-a", LONG))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.renew(null, LONG)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.release(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectedCallsLeaveNoTrace() {
    String name = freshName();
    assertThatThrownBy(() -> store.claim(name, F1, "node-a", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.inspect(name)).isEmpty();
  }

  private static final int THREADS = 16;

  @Test
  void exactlyOneOfManyThreadsClaimsAFiring() throws Exception {
    assertExactlyOneWinner(List.of(store), (s, name, i) -> s.claim(name, F1, "t" + i, LONG));
  }

  @Test
  void exactlyOneOfSeveralClientsClaimsAFiring() throws Exception {
    List<LeaseStore> clients = List.of(store, newStore(), newStore(), newStore());
    assertExactlyOneWinner(clients, (s, name, i) -> s.claim(name, F1, "t" + i, LONG));
  }

  @Test
  void exactlyOneOfSeveralClientsAcquires() throws Exception {
    List<LeaseStore> clients = List.of(store, newStore(), newStore(), newStore());
    assertExactlyOneWinner(clients, (s, name, i) -> s.acquire(name, "t" + i, LONG));
  }

  @Test
  void claimsOfDifferentFiringsRacingStillYieldOneWinner() throws Exception {
    List<LeaseStore> clients = List.of(store, newStore(), newStore());
    assertExactlyOneWinner(
        clients, (s, name, i) -> s.claim(name, F1.plusSeconds(i % 4), "t" + i, LONG));
  }

  @Test
  void manyRoundsOfRacingClaimsGiveOneWinnerPerFiring() throws Exception {
    List<LeaseStore> clients = List.of(store, newStore(), newStore());
    String name = freshName();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      Set<Long> fences = new HashSet<>();
      for (int round = 0; round < 20; round++) {
        Instant firing = F1.plusSeconds(round);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Optional<Lease>>> results = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          LeaseStore client = clients.get(i % clients.size());
          String holder = "t" + i;
          results.add(
              pool.submit(
                  () -> {
                    start.await();
                    return client.claim(name, firing, holder, LONG);
                  }));
        }
        start.countDown();
        List<Lease> winners = new ArrayList<>();
        for (Future<Optional<Lease>> f : results) {
          f.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
        }
        assertThat(winners).as("winners of round %d", round).hasSize(1);
        assertThat(fences.add(winners.get(0).fence())).isTrue();
        assertThat(store.release(winners.get(0))).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void assertExactlyOneWinner(List<LeaseStore> clients, Attempt attempt) throws Exception {
    String name = freshName();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Optional<Lease>>> results = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        LeaseStore client = clients.get(i % clients.size());
        int index = i;
        Callable<Optional<Lease>> call =
            () -> {
              start.await();
              return attempt.run(client, name, index);
            };
        results.add(pool.submit(call));
      }
      start.countDown();
      int winners = 0;
      for (Future<Optional<Lease>> f : results) {
        if (f.get(60, TimeUnit.SECONDS).isPresent()) {
          winners++;
        }
      }
      assertThat(winners).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @FunctionalInterface
  private interface Attempt {
    Optional<Lease> run(LeaseStore store, String name, int index);
  }

  /**
   * N threads on several clients, M times each: take the lease, increment a plain (unsafe) counter
   * with a pause between read and write, release. Any overlap loses an increment.
   */
  @Test
  void aPlainCounterIncrementedUnderTheLeaseEndsExact() throws Exception {
    int threads = 8;
    int iterations = 25;
    String name = freshName();
    List<LeaseStore> clients = List.of(store, newStore(), newStore(), newStore());
    int[] counter = {0};
    Set<Long> fences = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        LeaseStore client = clients.get(t % clients.size());
        String holder = "fuzz-" + t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < iterations; i++) {
                    Lease lease;
                    while ((lease = client.acquire(name, holder, LONG).orElse(null)) == null) {
                      Thread.onSpinWait();
                      Thread.yield();
                    }
                    assertThat(fences.add(lease.fence())).isTrue();
                    int read = counter[0];
                    Thread.yield();
                    counter[0] = read + 1;
                    assertThat(client.release(lease)).isTrue();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(100, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    synchronized (counter) {
      assertThat(counter[0]).isEqualTo(threads * iterations);
    }
    assertThat(fences).hasSize(threads * iterations);
  }
}
