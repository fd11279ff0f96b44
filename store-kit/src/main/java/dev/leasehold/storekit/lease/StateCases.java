package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseState;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What {@code inspect} and {@code list} show, and which names a store must keep apart. */
public abstract class StateCases extends LeaseStoreCases {

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
}
