package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Races (G1, G6): of many threads on several independent clients, exactly one wins each firing,
 * single or batched; a plain counter incremented under the lease ends exact.
 */
public abstract class RaceCases extends LeaseStoreCases {
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
  void exactlyOneOfSeveralClientsWinsATryClaim() throws Exception {
    List<LeaseStore> clients = List.of(store, newStore(), newStore(), newStore());
    assertExactlyOneWinner(
        clients, (s, name, i) -> s.tryClaim(name, F1, "t" + i, LONG).leaseIfWon());
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

  /**
   * Two clients batch overlapping names for the same firing, several rounds: every name is won
   * exactly once, and every loser is refused (never failed).
   */
  @Test
  void twoClientsBatchingOverlappingNamesWinEachNameOnce() throws Exception {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 90; i++) {
      names.add(freshName());
    }
    List<LeaseStore> clients = List.of(store, newStore());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 5; round++) {
        Instant firing = F1.plusSeconds(round);
        List<List<ClaimRequest>> batches =
            List.of(
                requests(names.subList(0, 60), firing, "a"),
                requests(names.subList(30, 90), firing, "b"));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<ClaimResult>>> answers = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
          LeaseStore client = clients.get(c);
          List<ClaimRequest> batch = batches.get(c);
          answers.add(
              pool.submit(
                  () -> {
                    start.await();
                    return client.claimAll(batch);
                  }));
        }
        start.countDown();
        Map<String, Integer> wins = new HashMap<>();
        for (int c = 0; c < 2; c++) {
          List<ClaimResult> results = answers.get(c).get(60, TimeUnit.SECONDS);
          assertThat(results).hasSize(60);
          for (int i = 0; i < 60; i++) {
            ClaimResult r = results.get(i);
            assertThat(r.kind()).as("round %d: %s", round, r).isNotEqualTo(ClaimResult.Kind.FAILED);
            if (r.won()) {
              assertThat(r.lease().name()).isEqualTo(batches.get(c).get(i).name());
              wins.merge(r.lease().name(), 1, Integer::sum);
              assertThat(clients.get(c).release(r.lease())).isTrue();
            }
          }
        }
        assertThat(wins)
            .as("round %d", round)
            .hasSize(90)
            .allSatisfy((n, w) -> assertThat(w).isOne());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<ClaimRequest> requests(List<String> names, Instant firing, String holder) {
    return names.stream().map(n -> new ClaimRequest(n, firing, holder, LONG)).toList();
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
}
