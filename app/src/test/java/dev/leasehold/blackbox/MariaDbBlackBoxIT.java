package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Black-box tests of {@code leasehold.jar run} processes on the real MariaDB server (a fresh
 * database per test, dropped afterwards): see {@link Scenarios}.
 */
class MariaDbBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  private SqlTestStore store() {
    return box.closeAfter(SqlTestStore.mariadb());
  }

  @Test
  void threeSkewedDaemonsRunEveryFiringOnceThroughAKillAndAPause() {
    Scenarios.killPauseAndSkew(box, store());
  }

  @Test
  void aJobWhoseLeaseRowIsDeletedIsStoppedWithItsProcessTree() {
    Scenarios.stolenLease(box, store());
  }

  @Test
  void theLatestFiringMissedWhileEveryDaemonWasDownRunsOnceWhenOneReturns() {
    Scenarios.catchUp(box, store());
  }
}
