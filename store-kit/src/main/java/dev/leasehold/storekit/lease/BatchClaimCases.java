package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code claimAll}: each entry of a batch is decided exactly as {@code tryClaim} would decide it,
 * and the answers come back in the order of the requests.
 */
public abstract class BatchClaimCases extends LeaseStoreCases {

  @Test
  void aMixedBatchAnswersEachNameInRequestOrder() {
    String held = freshName();
    String alreadyRun = freshName();
    String heldAndRun = freshName();
    String fresh = freshName();
    LeaseStore other = newStore();
    other.claim(held, F1, "node-a", LONG).orElseThrow();
    other.release(other.claim(alreadyRun, F2, "node-a", LONG).orElseThrow());
    other.claim(heldAndRun, F2, "node-a", LONG).orElseThrow();

    List<ClaimResult> results =
        store.claimAll(
            List.of(
                new ClaimRequest(held, F2, "node-b", LONG),
                new ClaimRequest(fresh, F2, "node-b", LONG),
                new ClaimRequest(alreadyRun, F2, "node-b", LONG),
                new ClaimRequest(heldAndRun, F2, "node-b", LONG)));

    assertThat(results)
        .extracting(ClaimResult::kind)
        .containsExactly(Kind.HELD, Kind.WON, Kind.ALREADY_RUN, Kind.ALREADY_RUN);
    assertThat(results.get(0).holder()).isIn("node-a", null);
    Lease won = results.get(1).lease();
    assertThat(won.name()).isEqualTo(fresh);
    assertThat(won.holder()).isEqualTo("node-b");
    assertThat(won.ttl()).isEqualTo(LONG);
    LeaseState state = other.inspect(fresh).orElseThrow();
    assertThat(state.lastFire()).isEqualTo(F2);
    assertThat(state.fence()).isEqualTo(won.fence());
    assertThat(state.currentHolder()).contains("node-b");
    assertThat(other.inspect(held).orElseThrow().currentHolder()).contains("node-a");
  }

  @Test
  void anEmptyBatchHasAnEmptyAnswer() {
    assertThat(store.claimAll(List.of())).isEmpty();
  }

  @Test
  void aBatchOfTwoHundredNamesIsWonWholeThenRefusedWhole() {
    List<ClaimRequest> batch = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      batch.add(new ClaimRequest(freshName(), F1, "node-a", LONG));
    }
    List<ClaimResult> first = store.claimAll(batch);
    assertThat(first).hasSize(200).allMatch(ClaimResult::won);
    for (int i = 0; i < 200; i++) {
      assertThat(first.get(i).lease().name()).isEqualTo(batch.get(i).name());
    }
    List<ClaimResult> again = newStore().claimAll(batch);
    assertThat(again).hasSize(200).allMatch(r -> r.kind() == Kind.ALREADY_RUN);
    for (ClaimResult r : first) {
      assertThat(store.release(r.lease())).isTrue();
    }
  }

  @Test
  void eachEntryOfABatchMovesItsOwnWatermarkAndFence() {
    String a = freshName();
    String b = freshName();
    List<ClaimResult> results =
        store.claimAll(
            List.of(
                new ClaimRequest(a, F1, "node-a", LONG), new ClaimRequest(b, F3, "node-a", LONG)));
    assertThat(results).allMatch(ClaimResult::won);
    assertThat(store.inspect(a).orElseThrow().lastFire()).isEqualTo(F1);
    assertThat(store.inspect(b).orElseThrow().lastFire()).isEqualTo(F3);
    results.forEach(r -> store.release(r.lease()));
    assertThat(store.claim(a, F2, "node-a", LONG)).isPresent();
    assertThat(store.claim(b, F2, "node-a", LONG)).isEmpty();
  }
}
