package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults of a single Redis server: a private redis-server per test, so it can be hurt. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisLeaseStoreFaultTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final Duration LONG = Duration.ofMinutes(5);

  private RedisServers servers;
  private LeaseStore store;
  private final String name = "fault-" + UUID.randomUUID().toString().substring(0, 8);

  private LeaseStore open(boolean aof) {
    servers = RedisServers.start(1, aof);
    store =
        RedisLeaseStore.open(
            new StoreSettings(
                "redis",
                servers.get(0).url(),
                List.of(),
                null,
                null,
                null,
                RedisServers.TIMEOUT,
                Map.of()));
    return store;
  }

  @AfterEach
  void stop() {
    if (store != null) {
      store.close();
    }
    if (servers != null) {
      servers.close();
    }
  }

  private static void eventually(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(end);
      Thread.sleep(50);
    }
  }

  /** The answer, or null while the client reconnects. */
  private static <T> T answerOrNull(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (LeaseStoreException e) {
      return null;
    }
  }

  @Test
  void scriptFlushDuringARunIsSurvived() {
    open(false);
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    SharedRedis.with(servers.get(0).url(), r -> r.scriptFlush());
    assertThat(store.renew(lease, LONG)).isTrue();
    SharedRedis.with(servers.get(0).url(), r -> r.scriptFlush());
    assertThat(store.release(lease)).isTrue();
    SharedRedis.with(servers.get(0).url(), r -> r.scriptFlush());
    assertThat(store.claim(name, F1, "node-b", LONG)).isEmpty();
    assertThat(store.claim(name, F2, "node-b", LONG)).isPresent();
    assertThat(store.inspect(name).orElseThrow().lastFire()).isEqualTo(F2);
  }

  @Test
  void aCrashAndRestartWithAofKeepsWatermarksAndFences() throws Exception {
    open(true);
    Lease first = store.claim(name, F1, "node-a", LONG).orElseThrow();
    store.release(first);
    Lease manual = store.acquire(name, "manual", LONG).orElseThrow();
    servers.get(0).restart(); // SIGKILL: only what appendfsync always wrote survives
    LeaseState[] read = new LeaseState[1];
    eventually(() -> (read[0] = answerOrNull(() -> store.inspect(name).orElseThrow())) != null);
    LeaseState state = read[0];
    assertThat(state.lastFire()).isEqualTo(F1);
    assertThat(state.fence()).isEqualTo(manual.fence());
    assertThat(state.currentHolder()).contains("manual");
    assertThat(store.release(manual)).isTrue();
    assertThat(store.claim(name, F1, "node-late", LONG)).isEmpty();
    assertThat(store.claim(name, F2, "node-b", LONG).orElseThrow().fence())
        .isGreaterThan(manual.fence());
  }

  @Test
  void aKilledServerGivesStoreFailuresNeverALeaseAndTheClientRecovers() throws Exception {
    open(false);
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    servers.get(0).kill();
    assertThatThrownBy(() -> store.claim(name, F2, "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.acquire(name + "-x", "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.renew(lease, LONG)).isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.inspect(name)).isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.list()).isInstanceOf(LeaseStoreException.class);

    servers.get(0).start();
    eventually(
        () ->
            Boolean.TRUE.equals(
                answerOrNull(() -> store.claim(name, F2, "node-a", LONG).isPresent())));
    assertThat(store.inspect(name).orElseThrow().lastFire()).isEqualTo(F2);
  }

  /**
   * A claim whose answer does not come back in time is reported as a failure, never as a lease. The
   * server may still run it (here: when it is resumed). Then the firing is spent and its lease
   * expires after the TTL without anyone running the job: fail closed.
   */
  /**
   * A stopped server keeps the claim in its socket: it times out on the client (not acquired), and
   * the server applies it when it runs again (a ghost claim). The undo the client sent behind it on
   * the same connection gives it back: the lease is free at once, the firing can be claimed again,
   * earlier firings stay spent, and the ghost's fence shows as a gap.
   */
  @Test
  void aClaimThatTimesOutIsUndoneBehindItAndItsFiringCanBeClaimedAgain() throws Exception {
    open(false);
    Instant f0 = F1.minusSeconds(60);
    Lease before = store.claim(name, f0, "node-a", LONG).orElseThrow();
    assertThat(store.release(before)).isTrue();
    servers.get(0).signal("STOP");
    try {
      assertThatThrownBy(() -> store.claim(name, F1, "node-a", LONG))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("claim");
    } finally {
      servers.get(0).signal("CONT");
    }
    // the inspection goes on the same connection, behind the held claim and its undo
    LeaseState ghost = store.inspect(name).orElseThrow();
    assertThat(ghost.fence()).as("the held claim was applied").isEqualTo(before.fence() + 1);
    assertThat(ghost.held()).as("and given back").isFalse();
    assertThat(ghost.lastFire()).isEqualTo(F1.minusMillis(1));
    assertThat(store.claim(name, F1.minusSeconds(1), "node-b", LONG)).isEmpty();
    Lease again = store.claim(name, F1, "node-b", LONG).orElseThrow();
    assertThat(again.fence()).isEqualTo(before.fence() + 2);
  }
}
