package dev.leasehold.blackbox;

import dev.leasehold.blackbox.servers.RedisServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three daemons on {@code store.type: redlock} over three redis-server processes the test starts
 * (AOF, free ports) keep firing a 1 s job exactly once while one Redis node is killed and started
 * again: a majority (2 of 3) stays, so no firing may be missed.
 */
class RedlockBlackBoxIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void aOneSecondJobFiresExactlyOnceWhileOneOfThreeNodesIsKilledAndRestarted() {
    List<RedisServerProcess> nodes =
        List.of(
            RedisServerProcess.start(box, "redis-1"),
            RedisServerProcess.start(box, "redis-2"),
            RedisServerProcess.start(box, "redis-3"));
    String store =
        "type: redlock\nurls:\n"
            + String.join("", nodes.stream().map(n -> "  - " + n.url() + "\n").toList());
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    List<Daemon> daemons = Scenarios.startNodes(box, store, Scenarios.LEASE, job, 0, 0, 0);
    Instant from = Scenarios.settled();
    Scenarios.awaitRuns(ledger, from, 5);

    nodes.get(1).kill();
    Scenarios.awaitRuns(ledger, Instant.now(), 8);
    nodes.get(1).start();
    Scenarios.awaitRuns(ledger, Instant.now(), 6);
    Instant to = Instant.now().minusSeconds(3);
    Scenarios.stopAll(daemons);

    Scenarios.judge(LedgerChecker.every(Duration.ofSeconds(1)).window(from, to), ledger);
  }
}
