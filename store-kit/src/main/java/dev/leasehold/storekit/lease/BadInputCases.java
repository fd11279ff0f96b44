package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseNames;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Failures the caller causes: bad arguments throw {@link IllegalArgumentException} before the store
 * is touched, and leave no trace in it (single claims and batches alike).
 */
public abstract class BadInputCases extends LeaseStoreCases {
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
      assertThatThrownBy(() -> store.tryClaim(bad, F1, "node-a", LONG))
          .as("tryClaim(%s)", bad)
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
      assertThatThrownBy(() -> store.tryClaim(freshName(), F1, bad, LONG))
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
      assertThatThrownBy(() -> store.tryClaim(freshName(), F1, "node-a", bad))
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
    assertThatThrownBy(() -> store.tryClaim(freshName(), null, "node-a", LONG))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.renew(null, LONG)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.release(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectedCallsLeaveNoTrace() {
    String name = freshName();
    assertThatThrownBy(() -> store.claim(name, F1, "node-a", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.tryClaim(name, F1, "node-a", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.inspect(name)).isEmpty();
  }

  @Test
  void aBatchNamingOneLeaseTwiceIsRefusedBeforeTheStoreIsTouched() {
    String a = freshName();
    String b = freshName();
    List<ClaimRequest> twice =
        List.of(
            new ClaimRequest(a, F1, "node-a", LONG),
            new ClaimRequest(b, F1, "node-a", LONG),
            new ClaimRequest(a, F2, "node-a", LONG));
    assertThatThrownBy(() -> store.claimAll(twice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(a);
    assertThat(store.inspect(a)).isEmpty();
    assertThat(store.inspect(b)).isEmpty();
  }

  @Test
  void aBatchWithOneInvalidRequestIsRefusedWhole() {
    String a = freshName();
    List<ClaimRequest> oneBad =
        List.of(
            new ClaimRequest(a, F1, "node-a", LONG),
            new ClaimRequest(freshName(), F1, "node-a", Duration.ZERO));
    assertThatThrownBy(() -> store.claimAll(oneBad)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.claimAll(null)).isInstanceOf(IllegalArgumentException.class);
    java.util.List<ClaimRequest> withNull = new java.util.ArrayList<>();
    withNull.add(new ClaimRequest(freshName(), F1, "node-a", LONG));
    withNull.add(null);
    assertThatThrownBy(() -> store.claimAll(withNull)).isInstanceOf(IllegalArgumentException.class);
    assertThat(store.inspect(a)).isEmpty();
  }
}
