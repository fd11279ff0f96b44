package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Renewal (G4): a live lease is extended by its token; an expired one is never revived. */
public abstract class RenewalCases extends LeaseStoreCases {

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
  void anExpiredLeaseCannotBeRevivedByRenew() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", SHORT).orElseThrow();
    eventually(EXPIRY_LIMIT, () -> store.inspect(name).map(s -> !s.held()).orElse(false));
    assertThat(store.renew(lease, LONG)).isFalse();
  }

  @Test
  void anotherClientWithTheTokenMayRenewAndRelease() {
    String name = freshName();
    Lease lease = store.acquire(name, "node-a", LONG).orElseThrow();
    LeaseStore other = newStore();
    assertThat(other.renew(lease, LONG)).isTrue();
    assertThat(other.release(lease)).isTrue();
  }
}
