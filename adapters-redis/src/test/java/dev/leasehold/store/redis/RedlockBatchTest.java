package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.redlock.RedlockLeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Redlock's {@code claimAll} (one script per node per batch) when some names are already held or
 * spent on a minority or a majority of the nodes: set up by single-node stores that write on one
 * node only, as a node that kept a rival's partial attempt would have it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockBatchTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final Duration LONG = Duration.ofMinutes(5);

  private RedisServers servers;

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private RedlockLeaseStore redlock() {
    return servers.redlock();
  }

  /** A plain Redis store on node {@code i} alone, with the Redlock's key prefix. */
  private LeaseStore onNode(int i) {
    StoreSettings redlock = servers.redlockSettings();
    LeaseStore store =
        RedisLeaseStore.open(
            new StoreSettings(
                "redis",
                servers.get(i).url(),
                List.of(),
                null,
                null,
                redlock.keyPrefix(),
                redlock.commandTimeout(),
                Map.of()));
    servers.closeWith(store);
    return store;
  }

  private String leaseToken(int node, String name) {
    String key = servers.redlockSettings().keyPrefix() + "{" + name + "}:lease";
    return SharedRedis.with(servers.get(node).url(), r -> r.get(key));
  }

  private String watermark(int node, String name) {
    String key = servers.redlockSettings().keyPrefix() + "{" + name + "}:meta";
    return SharedRedis.with(servers.get(node).url(), r -> r.hget(key, "last_fire"));
  }

  private long fence(int node, String name) {
    String key = servers.redlockSettings().keyPrefix() + "{" + name + "}:meta";
    return Long.parseLong(SharedRedis.with(servers.get(node).url(), r -> r.hget(key, "fence")));
  }

  private static String fresh(String what) {
    return what + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void namesHeldOrSpentOnAMinorityAreWonAndOnAMajorityRefusedAsASingleClaimWould() {
    servers = RedisServers.start(3, false);
    String heldOnOne = fresh("held1");
    String heldOnTwo = fresh("held2");
    String ranOnOne = fresh("ran1");
    String ranOnTwo = fresh("ran2");
    String free = fresh("free");
    Lease minorityHolder = onNode(0).claim(heldOnOne, F1, "rival", LONG).orElseThrow();
    onNode(0).claim(heldOnTwo, F1, "rival", LONG).orElseThrow();
    onNode(1).claim(heldOnTwo, F1, "rival", LONG).orElseThrow();
    LeaseStore zero = onNode(0);
    zero.release(zero.claim(ranOnOne, F2, "rival", LONG).orElseThrow());
    zero.release(zero.claim(ranOnTwo, F2, "rival", LONG).orElseThrow());
    LeaseStore one = onNode(1);
    one.release(one.claim(ranOnTwo, F2, "rival", LONG).orElseThrow());

    List<ClaimResult> answers =
        redlock()
            .claimAll(
                List.of(
                    new ClaimRequest(heldOnOne, F2, "node-b", LONG),
                    new ClaimRequest(heldOnTwo, F2, "node-b", LONG),
                    new ClaimRequest(ranOnOne, F2, "node-b", LONG),
                    new ClaimRequest(ranOnTwo, F2, "node-b", LONG),
                    new ClaimRequest(free, F2, "node-b", LONG)));

    assertThat(answers)
        .extracting(ClaimResult::kind)
        .containsExactly(Kind.WON, Kind.HELD, Kind.WON, Kind.ALREADY_RUN, Kind.WON);
    assertThat(answers.get(1).holder()).isEqualTo("rival");
    assertThat(answers.get(3).watermark()).isEqualTo(F2);
    // won on nodes 1 and 2; node 0 still has the rival's lease, untouched
    Lease won = answers.get(0).lease();
    assertThat(leaseToken(0, heldOnOne)).isEqualTo(minorityHolder.token());
    assertThat(leaseToken(1, heldOnOne)).isEqualTo(won.token());
    assertThat(leaseToken(2, heldOnOne)).isEqualTo(won.token());
    // refused names: node 2 granted them alone, and that grant was undone (lease and watermark)
    for (String refused : List.of(heldOnTwo, ranOnTwo)) {
      assertThat(leaseToken(2, refused)).isNull();
      assertThat(watermark(2, refused)).isNull();
    }
    assertThat(watermark(0, heldOnTwo)).isEqualTo("" + F1.toEpochMilli());
    // the same answers as single claims on a fresh client
    RedlockLeaseStore single = redlock();
    assertThat(single.tryClaim(heldOnOne, F2, "node-c", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(single.tryClaim(heldOnTwo, F2, "node-c", LONG).kind()).isEqualTo(Kind.HELD);
    assertThat(single.tryClaim(ranOnTwo, F2, "node-c", LONG).kind()).isEqualTo(Kind.ALREADY_RUN);
    // a won batch entry is a full lease: renewed and released on the majority
    for (int i : new int[] {0, 2, 4}) {
      Lease lease = answers.get(i).lease();
      assertThat(single.renew(lease, LONG)).isTrue();
      assertThat(single.release(lease)).isTrue();
    }
  }

  @Test
  void aNodeAheadOnFencesMakesTheBatchRaiseTheOthersAndFencesKeepRising() {
    servers = RedisServers.start(3, false);
    String name = fresh("fence");
    LeaseStore zero = onNode(0);
    long ahead = 0;
    for (int i = 0; i < 5; i++) {
      Lease l = zero.claim(name, F1.minusSeconds(60 * (10 - i)), "rival", LONG).orElseThrow();
      ahead = l.fence();
      zero.release(l);
    }
    RedlockLeaseStore store = redlock();
    Lease first =
        store.claimAll(List.of(new ClaimRequest(name, F1, "node-a", LONG))).get(0).lease();
    assertThat(first.fence()).isGreaterThan(ahead);
    // round 2 raised the other granting nodes to the same fence
    for (int node = 0; node < 3; node++) {
      assertThat(fence(node, name)).isEqualTo(first.fence());
    }
    store.release(first);
    Lease second =
        redlock().claimAll(List.of(new ClaimRequest(name, F2, "node-b", LONG))).get(0).lease();
    assertThat(second.fence()).isGreaterThan(first.fence());
  }

  @Test
  void aBatchWithOneNodeDownIsWonOnTheOtherTwoAndWithTwoDownFails() {
    servers = RedisServers.start(3, false);
    List<ClaimRequest> batch = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      batch.add(new ClaimRequest(fresh("down"), F1, "node-a", LONG));
    }
    servers.get(2).kill();
    assertThat(redlock().claimAll(batch)).allMatch(ClaimResult::won);
    servers.get(1).kill();
    List<ClaimRequest> next =
        batch.stream().map(r -> new ClaimRequest(r.name(), F2, "node-b", LONG)).toList();
    assertThat(redlock().claimAll(next)).allMatch(r -> r.kind() == Kind.FAILED);
  }

  @Test
  void withWaitReplicasAndNoReplicaEveryGrantOfTheBatchIsUndoneAndNothingIsWon() {
    servers = RedisServers.start(3, false);
    StoreSettings plain = servers.redlockSettings();
    RedlockLeaseStore waiting =
        RedlockLeaseStore.open(
            new StoreSettings(
                "redlock",
                null,
                plain.urls(),
                null,
                null,
                plain.keyPrefix(),
                plain.commandTimeout(),
                Map.of("wait-replicas", "1")));
    servers.closeWith(waiting);
    List<ClaimRequest> batch = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      batch.add(new ClaimRequest(fresh("wait"), F1, "node-a", LONG));
    }
    // no node has a replica: every node's WAIT answers 0, so its grants are undone there
    assertThat(waiting.claimAll(batch)).allMatch(r -> r.kind() == Kind.FAILED);
    for (ClaimRequest r : batch) {
      for (int node = 0; node < 3; node++) {
        assertThat(leaseToken(node, r.name())).isNull();
        assertThat(watermark(node, r.name())).isNull();
      }
    }
    // the firings are not spent: nobody ran them
    assertThat(redlock().claimAll(batch)).allMatch(ClaimResult::won);
  }
}
