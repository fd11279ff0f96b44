package dev.leasehold.store.zookeeper;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.job.ScopedHistoryCases;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What is particular to ZooKeeper's history (the kit is ZooKeeperExecutionLogContractTest): the cap
 * per job (trimmed in steps, so up to twice the cap a while), prefixes. A ZooKeeper process the
 * test starts.
 */
class ZooKeeperExecutionLogTest extends ScopedHistoryCases {
  private static ZooKeeperServers zookeeper;
  private static final String PREFIX = ZooKeeperServers.freshPrefix();

  @BeforeAll
  static void startZooKeeper() {
    zookeeper = ZooKeeperServers.start(1);
  }

  @AfterAll
  static void stopZooKeeper() {
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @Override
  protected StoreBackend openScoped(String scope, Map<String, String> options) {
    return new ZooKeeperStoreFactory()
        .open(
            new StoreSettings(
                "zookeeper",
                zookeeper.url(""),
                List.of(),
                null,
                null,
                scope.isEmpty() ? PREFIX : PREFIX + "/" + scope,
                ZooKeeperServers.TIMEOUT,
                options));
  }

  @Override
  protected int capSlack() {
    return 10;
  }
}
