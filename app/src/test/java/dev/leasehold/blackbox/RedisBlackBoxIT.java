package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.blackbox.servers.RedisServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Black-box tests of daemons on {@code store.type: redis}: kill, pause and skew and the stolen
 * lease on the shared Redis (a fresh key prefix per test), and a crash and restart of a Redis with
 * AOF that the test runs itself.
 */
class RedisBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  /**
   * The kill, pause and skew scenario and the pause and resume scenario on the same three daemons:
   * see {@link PauseScenario#withKillAndPauseOnTheSameDaemons}.
   */
  @Test
  void threeSkewedDaemonsRunEveryFiringOnceThroughAKillAndAPauseAndPauseResumeAsDocumented() {
    PauseScenario.withKillAndPauseOnTheSameDaemons(box, box.closeAfter(RedisTestStore.shared()));
  }

  @Test
  void aJobWhoseLeaseKeyIsDeletedIsStoppedWithItsProcessTree() {
    Scenarios.stolenLease(box, box.closeAfter(RedisTestStore.shared()));
  }

  /**
   * Also the group and jitter scenario, on the same daemons: a group of one never overlaps across
   * replicas and jittered firings run once each ({@link GroupJitterScenario}).
   */
  @Test
  void aDeletedLeaseRecordDoesNotWedgeTheJobAndJobsOfAGroupOfOneNeverOverlap() {
    Scenarios.aDeletedLeaseRecordDoesNotWedgeTheJob(
        box, box.closeAfter(RedisTestStore.shared()), true);
  }

  @Test
  void aJobNeverOutlivesItsLeaseWhenItsDaemonStallsOrDies() {
    Scenarios.aJobNeverOutlivesItsLease(box, box.closeAfter(RedisTestStore.shared()));
  }

  /**
   * A Redis with AOF ({@code appendfsync always}) crashes (SIGKILL) under three daemons and comes
   * back on the same port and data about 6 s later. No firing that came due while it was down runs
   * (give or take a claim in flight and the 1 s timer tolerance), every firing from TTL + slack
   * after its return runs once, and fences keep rising across the restart (the AOF kept them).
   */
  @Test
  void noFiringRunsWhileRedisIsDownAndEveryFiringAfterItsRestartRunsOnce() {
    RedisServerProcess redis = RedisServerProcess.start(box, "redis-aof");
    RedisTestStore store = RedisTestStore.on(redis.port());
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    List<Daemon> daemons = Scenarios.startNodes(box, store.yaml(), Scenarios.LEASE, job, 0, 0, 0);
    Instant from = Scenarios.settled();
    Scenarios.awaitRuns(ledger, from, 5);

    Instant down = Instant.now();
    redis.kill();
    Scenarios.sleep(Duration.ofSeconds(6));
    Instant up = Instant.now();
    redis.start();
    Scenarios.awaitRuns(ledger, up.plus(Scenarios.TTL).plus(Scenarios.SLACK), 8);
    Instant to = Instant.now().minusSeconds(3);
    Scenarios.stopAll(daemons);

    Scenarios.judge(
        LedgerChecker.every(Duration.ofSeconds(1))
            .window(from, to)
            .fault("Redis down", down, up.plus(Scenarios.TTL).plus(Scenarios.SLACK)),
        ledger);
    // a claim in flight at the crash ran a firing up to 1 s after it; after the restart, a late
    // timer may still take a firing up to the 1 s tolerance old
    Instant quietFrom = down.plusSeconds(1);
    Instant quietTo = up.minusSeconds(1);
    assertThat(Ledger.read(ledger).runs())
        .as("firings due while Redis was down (%s to %s)", quietFrom, quietTo)
        .noneMatch(e -> e.fire().isAfter(quietFrom) && e.fire().isBefore(quietTo));
  }

  @Test
  void failedRunsAreRetriedOnceOnAnyReplicaWithRisingFencesAndNotifiedOnce() {
    RetryScenario.failedRunsAreRetriedOnceOnAnyReplicaAndNotifiedOnce(
        box, box.closeAfter(RedisTestStore.shared()));
  }
}
