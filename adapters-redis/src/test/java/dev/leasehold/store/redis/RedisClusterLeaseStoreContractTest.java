package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract kit on a real Redis Cluster of 3 masters and 3 replicas started by the test, through
 * a {@code redis-cluster://} URL naming every node as a seed.
 */
class RedisClusterLeaseStoreContractTest extends LeaseStoreContract {
  private static ClusterSetup cluster;
  private static final String PREFIX = RedisServers.freshPrefix();

  @BeforeAll
  static void startCluster() throws Exception {
    RedisServers.requireBinary();
    cluster = new ClusterSetup(3);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  protected StoreBackend createBackend() {
    return new RedisStoreFactory().open(cluster.settings(PREFIX));
  }
}
