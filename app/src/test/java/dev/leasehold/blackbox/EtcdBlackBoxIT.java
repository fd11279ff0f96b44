package dev.leasehold.blackbox;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Black-box tests of daemons on {@code store.type: etcd}: real etcd processes started by the test
 * (a 3-member cluster, or one member for the stolen lease).
 */
class EtcdBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void threeSkewedDaemonsRunEveryFiringOnceThroughAKillAndAPause() {
    Scenarios.killPauseAndSkew(box, box.closeAfter(EtcdTestStore.start(3)));
  }

  @Test
  void aJobWhoseLeaseKeyIsDeletedWithEtcdctlIsStoppedWithItsProcessTree() {
    Scenarios.stolenLease(box, box.closeAfter(EtcdTestStore.start(1)));
  }

  /**
   * Three daemons on a 3-member cluster keep firing a 1 s job exactly once while the etcd leader is
   * killed (SIGKILL): the two members left elect a new leader and keep every lease.
   */
  @Test
  void aOneSecondJobFiresExactlyOnceWhileTheEtcdLeaderIsKilled() {
    EtcdTestStore store = box.closeAfter(EtcdTestStore.start(3));
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    List<Daemon> daemons = Scenarios.startNodes(box, store.yaml(), Scenarios.LEASE, job, 0, 0, 0);
    Instant from = Scenarios.settled();
    Scenarios.awaitRuns(ledger, from, 5);

    Instant killedAt = Instant.now();
    store.servers().member(store.servers().leader()).kill();
    Scenarios.awaitRuns(ledger, Instant.now(), 8);
    Instant to = Instant.now().minusSeconds(3);
    Scenarios.stopAll(daemons);

    // an election takes a moment: a firing claimed during it may fail closed (missed), never twice
    Scenarios.judge(
        LedgerChecker.every(Duration.ofSeconds(1))
            .window(from, to)
            .fault("etcd leader killed", killedAt, killedAt.plus(Scenarios.TTL)),
        ledger);
  }
}
