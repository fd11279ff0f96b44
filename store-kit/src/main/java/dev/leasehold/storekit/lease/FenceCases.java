package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fences (G6): every lease taken gets a larger fence; refusals, release and expiry reset none. */
public abstract class FenceCases extends LeaseStoreCases {

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
    assertThat(store.tryClaim(name, F2, "node-b", LONG).won()).isFalse();
    assertThat(store.acquire(name, "node-b", LONG)).isEmpty();
    assertThat(store.inspect(name).orElseThrow().fence()).isEqualTo(lease.fence());
  }
}
