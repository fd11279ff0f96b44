package dev.leasehold.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.lease.HoldThroughAFault;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real 3-member etcd cluster (one per test) with members killed by SIGKILL while a lease is held
 * and renewed. The holder talks to the member that dies first; a rival keeps trying to take the
 * same job through the other members. Judged by the answers, never by durations.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EtcdClusterFaultTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);

  /** Longer than a leader election here, so a renewal every half second keeps it. */
  private static final Duration TTL = Duration.ofSeconds(6);

  private EtcdServers cluster;
  private final List<StoreBackend> opened = new ArrayList<>();
  private final String name = "job-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeEach
  void start() {
    cluster = EtcdServers.start(3);
  }

  @AfterEach
  void stop() {
    opened.forEach(StoreBackend::close);
    cluster.close();
  }

  /** A client that tries the members in this order. */
  private LeaseStore client(int... order) {
    List<String> urls = new ArrayList<>();
    for (int i : order) {
      urls.add(cluster.member(i).url());
    }
    StoreSettings settings =
        new StoreSettings(
            "etcd", null, urls, null, null, cluster.prefix(), Duration.ofSeconds(2), Map.of());
    StoreBackend backend = new EtcdStoreFactory().open(settings);
    opened.add(backend);
    return backend.leaseStore();
  }

  @Test
  void aFollowerKilledDuringAHoldLosesNoLeaseAndLetsNoRivalIn() {
    int leader = cluster.leader();
    int victim = (leader + 1) % 3;
    int other = (leader + 2) % 3;
    holdThroughAKill(victim, client(victim, leader, other), client(other, leader, victim));
  }

  @Test
  void theLeaderKilledDuringAHoldLosesNoLeaseAndLetsNoRivalIn() {
    int leader = cluster.leader();
    int a = (leader + 1) % 3;
    int b = (leader + 2) % 3;
    holdThroughAKill(leader, client(leader, a, b), client(b, a, leader));
    int newLeader = cluster.leader();
    assertThat(newLeader).isNotEqualTo(leader);
  }

  @Test
  void aClusterWithoutQuorumAnswersNothingAndGrantsNothing() {
    int leader = cluster.leader();
    LeaseStore store = client(0, 1, 2);
    Lease lease = store.claim(name, F1, "node-a", TTL).orElseThrow();
    cluster.member((leader + 1) % 3).kill();
    cluster.member((leader + 2) % 3).kill();
    assertThatThrownBy(() -> store.claim(name + "-other", F1, "node-a", TTL))
        .isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.renew(lease, TTL)).isInstanceOf(LeaseStoreException.class);
  }

  @Test
  void aKilledMemberComesBackAndServesTheSameState() {
    // a follower: the leader's loss (an election) is the test above
    int victim = (cluster.leader() + 1) % 3;
    int[] order = {victim, (victim + 1) % 3, (victim + 2) % 3};
    LeaseStore store = client(order);
    Lease lease = store.claim(name, F1, "node-a", Duration.ofMinutes(5)).orElseThrow();
    cluster.member(victim).kill();
    LeaseStore rival = client(order);
    assertThat(rival.claim(name, F2, "node-b", TTL)).isEmpty();
    cluster.member(victim).restart();
    LeaseStore viaRestarted = client(victim);
    assertThat(viaRestarted.inspect(name).orElseThrow().fence()).isEqualTo(lease.fence());
    assertThat(viaRestarted.claim(name, F1, "node-c", TTL)).isEmpty();
    assertThat(store.release(lease)).isTrue();
    assertThat(viaRestarted.claim(name, F2, "node-c", TTL).orElseThrow().fence())
        .isGreaterThan(lease.fence());
  }

  private void holdThroughAKill(int victim, LeaseStore holder, LeaseStore rival) {
    HoldThroughAFault.check(name, holder, rival, TTL, () -> cluster.member(victim).kill());
  }
}
