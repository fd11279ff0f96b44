package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The black-box scenarios on one SQL server, each test in a fresh database or schema that is
 * dropped afterwards: see {@link Scenarios}. Subclasses name the server.
 */
abstract class SqlBlackBoxScenarios {
  @RegisterExtension final BlackBox box = new BlackBox();

  /** A fresh, empty database or schema on the server under test. */
  abstract SqlTestStore freshStore();

  private SqlTestStore store() {
    return box.closeAfter(freshStore());
  }

  /**
   * The kill, pause and skew scenario and the pause and resume scenario on the same three daemons:
   * see {@link PauseScenario#withKillAndPauseOnTheSameDaemons}.
   */
  @Test
  void threeSkewedDaemonsRunEveryFiringOnceThroughAKillAndAPauseAndPauseResumeAsDocumented() {
    PauseScenario.withKillAndPauseOnTheSameDaemons(box, store());
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
