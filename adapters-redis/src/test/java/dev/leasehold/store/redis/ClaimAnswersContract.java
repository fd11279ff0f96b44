package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.store.redis.node.ClaimScript;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The claim answers of the Redis stores: {@code tryClaim}'s reason decided by the claim script
 * itself, and {@code claimAll} batches whose entries behave exactly like single claims. Subclasses
 * give a store on a real server; each test uses fresh names.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ClaimAnswersContract {
  static final Duration LONG = Duration.ofMinutes(5);
  static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  static final Instant F2 = F1.plusSeconds(60);

  private final List<LeaseStore> opened = new ArrayList<>();
  LeaseStore store;

  abstract LeaseStore open();

  LeaseStore newStore() {
    LeaseStore s = open();
    opened.add(s);
    return s;
  }

  @BeforeEach
  void openStore() {
    store = newStore();
  }

  @AfterEach
  void closeStores() {
    opened.forEach(LeaseStore::close);
  }

  static String fresh() {
    return "ans-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void aRefusalSaysWhetherTheFiringRanOrAnEarlierRunStillHolds() {
    String name = fresh();
    ClaimResult won = store.tryClaim(name, F1, "node-a", LONG);
    assertThat(won.kind()).isEqualTo(Kind.WON);

    ClaimResult again = newStore().tryClaim(name, F1, "node-b", LONG);
    assertThat(again.kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(again.watermark()).isEqualTo(F1);

    ClaimResult next = newStore().tryClaim(name, F2, "node-b", LONG);
    assertThat(next.kind()).isEqualTo(Kind.HELD);
    assertThat(next.holder()).isEqualTo("node-a");
    assertThat(next.watermark()).isEqualTo(F1);

    assertThat(store.release(won.lease())).isTrue();
    ClaimResult after = newStore().tryClaim(name, F2, "node-b", LONG);
    assertThat(after.kind()).isEqualTo(Kind.WON);
    assertThat(after.lease().fence()).isGreaterThan(won.lease().fence());
  }

  @Test
  void anAlreadyRunFiringIsReportedAsSuchEvenWhileItsRunHolds() {
    String name = fresh();
    store.tryClaim(name, F2, "node-a", LONG);
    ClaimResult older = store.tryClaim(name, F1, "node-b", LONG);
    assertThat(older.kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(older.watermark()).isEqualTo(F2);
  }

  @Test
  void aBatchAnswersEachEntryAsASingleClaimWould() {
    String held = fresh();
    String ran = fresh();
    String free = fresh();
    String fresh = fresh();
    Lease holding = store.claim(held, F1, "node-a", LONG).orElseThrow();
    store.release(store.claim(ran, F2, "node-a", LONG).orElseThrow());
    Lease before = store.claim(free, F1, "node-a", LONG).orElseThrow();
    store.release(before);

    List<ClaimResult> answers =
        newStore()
            .claimAll(
                List.of(
                    new ClaimRequest(held, F2, "node-b", LONG),
                    new ClaimRequest(ran, F2, "node-b", LONG),
                    new ClaimRequest(free, F2, "node-b", LONG),
                    new ClaimRequest(fresh, F2, "node-b", LONG)));

    assertThat(answers)
        .extracting(ClaimResult::kind)
        .containsExactly(Kind.HELD, Kind.ALREADY_RUN, Kind.WON, Kind.WON);
    assertThat(answers.get(0).holder()).isEqualTo("node-a");
    assertThat(answers.get(1).watermark()).isEqualTo(F2);
    assertThat(answers.get(2).lease().fence()).isGreaterThan(before.fence());
    assertThat(answers.get(3).lease().name()).isEqualTo(fresh);
    assertThat(store.inspect(free).orElseThrow().lastFire()).isEqualTo(F2);
    assertThat(store.inspect(held).orElseThrow().lastFire()).isEqualTo(F1);
    assertThat(store.release(holding)).isTrue();
    for (ClaimResult won : answers.subList(2, 4)) {
      assertThat(store.renew(won.lease(), LONG)).isTrue();
      assertThat(store.release(won.lease())).isTrue();
    }
  }

  @Test
  void aBatchLargerThanOneScriptCallTakesEveryName() {
    List<ClaimRequest> requests = new ArrayList<>();
    for (int i = 0; i < ClaimScript.BATCH * 2 + 7; i++) {
      requests.add(new ClaimRequest(fresh(), F1, "node-a", LONG));
    }
    List<ClaimResult> answers = store.claimAll(requests);
    assertThat(answers).hasSize(requests.size()).allMatch(ClaimResult::won);
    for (int i = 0; i < requests.size(); i += 97) {
      assertThat(answers.get(i).lease().name()).isEqualTo(requests.get(i).name());
      assertThat(store.inspect(requests.get(i).name()).orElseThrow().currentHolder())
          .contains("node-a");
    }
    assertThat(newStore().claimAll(requests))
        .allMatch(r -> r.kind() == Kind.ALREADY_RUN && F1.equals(r.watermark()));
  }

  @Test
  void racingBatchesGiveOneWinnerPerName() throws Exception {
    List<ClaimRequest> template = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      template.add(new ClaimRequest(fresh(), F1, "x", LONG));
    }
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<List<ClaimResult>>> racers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        LeaseStore client = newStore();
        String holder = "racer-" + r;
        List<ClaimRequest> mine =
            template.stream()
                .map(t -> new ClaimRequest(t.name(), t.firing(), holder, t.ttl()))
                .toList();
        racers.add(pool.submit(() -> client.claimAll(mine)));
      }
      Map<String, Integer> winners = new HashMap<>();
      for (Future<List<ClaimResult>> f : racers) {
        for (ClaimResult r : f.get(60, TimeUnit.SECONDS)) {
          assertThat(r.kind()).isNotEqualTo(Kind.FAILED);
          if (r.won()) {
            winners.merge(r.lease().name(), 1, Integer::sum);
          }
        }
      }
      assertThat(winners).hasSize(template.size()).allSatisfy((n, c) -> assertThat(c).isOne());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aBatchWithANameTwiceIsRefusedBeforeTheStoreIsTouched() {
    String name = fresh();
    assertThatThrownBy(
            () ->
                store.claimAll(
                    List.of(
                        new ClaimRequest(name, F1, "a", LONG),
                        new ClaimRequest(name, F2, "a", LONG))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.inspect(name)).isEmpty();
  }
}
