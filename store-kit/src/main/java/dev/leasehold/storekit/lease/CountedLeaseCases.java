package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.CountedLease;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A {@link CountedLease} (the slots of a concurrency group) on this store: of many threads on
 * several independent clients, never more than {@code max} hold a slot at once, every slot is used,
 * and a released slot is free again at once.
 */
public abstract class CountedLeaseCases extends LeaseStoreCases {
  private static final int THREADS = 8;
  private static final int ROUNDS = 15;

  @Test
  void neverMoreThanMaxOfManyThreadsHoldASlotAtOnce() throws Exception {
    int max = 2;
    String group = freshName().replace('-', '_');
    List<LeaseStore> clients = List.of(store, newStore(), newStore());
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger taken = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        LeaseStore client = clients.get(t % clients.size());
        String holder = "t" + t;
        threads.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int round = 0; round < ROUNDS; round++) {
                    Optional<Lease> slot = CountedLease.tryTake(client, group, max, holder, LONG);
                    if (slot.isEmpty()) {
                      Thread.sleep(2);
                      continue;
                    }
                    taken.incrementAndGet();
                    int now = inside.incrementAndGet();
                    most.accumulateAndGet(now, Math::max);
                    Thread.sleep(3);
                    inside.decrementAndGet();
                    assertThat(client.release(slot.get())).isTrue();
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : threads) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(most.get()).as("slots held at once").isEqualTo(max);
    assertThat(taken.get()).isPositive();
    // whether a thread met a full group depends on the store's timing (Redlock's acquire takes
    // longer than a slot is held); a full group's refusal is the next case's, deterministically
    for (int i = 0; i < max; i++) {
      assertThat(store.inspect(CountedLease.slotName(group, i)))
          .as("slot %d was used and is free", i)
          .hasValueSatisfying(s -> assertThat(s.held()).isFalse());
    }
  }

  @Test
  void aFullGroupRefusesAndAReleasedSlotIsFreeAgain() {
    String group = freshName().replace('-', '_');
    LeaseStore other = newStore();
    Lease a = CountedLease.tryTake(store, group, 2, "a", LONG).orElseThrow();
    Lease b = CountedLease.tryTake(other, group, 2, "b", LONG).orElseThrow();
    assertThat(a.name()).isNotEqualTo(b.name());
    assertThat(CountedLease.tryTake(other, group, 2, "c", LONG)).isEmpty();

    assertThat(store.release(a)).isTrue();
    Lease c = CountedLease.tryTake(other, group, 2, "c", LONG).orElseThrow();
    assertThat(c.name()).isEqualTo(a.name());
    assertThat(store.renew(c, Duration.ofMinutes(1))).isTrue();
    assertThat(CountedLease.tryTake(store, group, 2, "d", LONG)).isEmpty();
  }
}
