package dev.leasehold.store.zookeeper;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.job.ExecutionLogContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The history kit against one real ZooKeeper server started for this class. */
class ZooKeeperExecutionLogContractTest extends ExecutionLogContract {
  private static ZooKeeperServers zookeeper;

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
  protected StoreBackend createBackend() {
    return new ZooKeeperStoreFactory().open(zookeeper.settings());
  }
}
