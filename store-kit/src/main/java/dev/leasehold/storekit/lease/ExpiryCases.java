package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Expiry on the store's clock (G3): a dead holder blocks nobody longer than its TTL, a live lease
 * is never taken early, and the watermark outlives the lease. A store that tells its time ({@link
 * LeaseStore#storeTime}) tells the clock its leases expire on: schedulers fire by it.
 */
public abstract class ExpiryCases extends LeaseStoreCases {

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
  void anExpiredLeaseShowsAsNotHeld() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-dead", SHORT).orElseThrow();
    LeaseStore other = newStore();
    eventually(EXPIRY_LIMIT, () -> other.inspect(name).map(s -> !s.held()).orElse(false));
    LeaseState state = other.inspect(name).orElseThrow();
    assertThat(state.currentHolder()).isEmpty();
    assertThat(state.fence()).isEqualTo(lease.fence());
  }

  @Test
  void theStoresTimeIsTheClockOfALeasesExpiry() {
    Optional<Instant> before = store.storeTime();
    Lease lease = store.claim(freshName(), F1, "node-a", LONG).orElseThrow();
    if (before.isEmpty()) {
      // a store without a clock a client can read (etcd) says so every time, so its replicas
      // fire on their own clocks throughout, never on a mix of the two
      assertThat(store.storeTime()).as("the store's time, asked again after a claim").isEmpty();
      return;
    }
    Instant after = store.storeTime().orElseThrow();
    assertThat(after).isAfterOrEqualTo(before.get());
    if (lease.expiresAt() != null) {
      // the claim read the store's clock between the two reads (at the store's precision)
      assertThat(lease.expiresAt().minus(lease.ttl()))
          .isBetween(before.get().truncatedTo(ChronoUnit.MILLIS), after.plusMillis(1));
    }
  }
}
