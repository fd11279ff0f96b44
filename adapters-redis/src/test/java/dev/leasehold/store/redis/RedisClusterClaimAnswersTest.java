package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Claim answers and batches (grouped per hash slot) on a real 3-master Redis Cluster. */
class RedisClusterClaimAnswersTest extends ClaimAnswersContract {
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
  LeaseStore open() {
    return RedisLeaseStore.open(cluster.settings(PREFIX));
  }
}
