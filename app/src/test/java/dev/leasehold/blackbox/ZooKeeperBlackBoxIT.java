package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Black-box tests of daemons on {@code store.type: zookeeper}: real ZooKeeper servers from the
 * Debian package, started by the test (a 3-server ensemble, or one server for the stolen lease).
 */
class ZooKeeperBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void threeSkewedDaemonsRunEveryFiringOnceThroughAKillAndAPause() {
    Scenarios.killPauseAndSkew(box, box.closeAfter(ZooKeeperTestStore.start(3)));
  }

  @Test
  void aJobWhoseLeaseNodeIsDeletedWithZkCliIsStoppedWithItsProcessTree() {
    Scenarios.stolenLease(box, box.closeAfter(ZooKeeperTestStore.start(1)));
  }
}
