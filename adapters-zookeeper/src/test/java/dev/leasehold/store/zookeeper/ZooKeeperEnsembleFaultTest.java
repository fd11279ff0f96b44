package dev.leasehold.store.zookeeper;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.lease.HoldThroughAFault;
import java.time.Duration;
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
 * A real 3-server ZooKeeper ensemble with a server killed (SIGKILL) while a lease is held and
 * renewed; a rival keeps trying to take the job. Judged by the answers, never by durations.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperEnsembleFaultTest {

  /** Inside the session timeout (an ephemeral node), longer than an election here. */
  private static final Duration TTL = Duration.ofSeconds(8);

  private ZooKeeperServers ensemble;
  private final List<StoreBackend> opened = new ArrayList<>();
  private final String name = "job-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeEach
  void start() {
    ensemble = ZooKeeperServers.start(3);
  }

  @AfterEach
  void stop() {
    opened.forEach(StoreBackend::close);
    ensemble.close();
  }

  private LeaseStore client() {
    StoreSettings settings =
        new StoreSettings(
            "zookeeper",
            ensemble.url("/fault"),
            List.of(),
            null,
            null,
            ensemble.prefix(),
            Duration.ofSeconds(3),
            Map.of("session-timeout", "20s"));
    StoreBackend backend = new ZooKeeperStoreFactory().open(settings);
    opened.add(backend);
    return backend.leaseStore();
  }

  @Test
  void theLeaderKilledDuringAHoldLosesNoLeaseAndLetsNoRivalIn() {
    holdThroughAKill(ensemble.leader());
  }

  @Test
  void aFollowerKilledDuringAHoldLosesNoLeaseAndLetsNoRivalIn() {
    holdThroughAKill((ensemble.leader() + 1) % 3);
  }

  private void holdThroughAKill(int victim) {
    HoldThroughAFault.check(name, client(), client(), TTL, () -> ensemble.server(victim).kill());
  }
}
