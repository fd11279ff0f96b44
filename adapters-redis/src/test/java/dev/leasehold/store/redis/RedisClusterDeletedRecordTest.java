package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.storekit.lease.DeletedRecordCases;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The deleted-record cases on a real Redis Cluster of 3 masters and 3 replicas started by the test:
 * the operator deletes the lease key and the meta hash on the master that holds their slot.
 */
class RedisClusterDeletedRecordTest extends DeletedRecordCases {
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

  @Override
  protected void deleteRecordByHand(String name) {
    LeaseKeys keys = LeaseKeys.of(PREFIX);
    long deleted = 0;
    for (RedisServers.Server s : cluster.servers) {
      try {
        deleted += SharedRedis.with(s.url(), r -> r.del(keys.lease(name)[0], keys.meta(name)));
      } catch (RedisException e) {
        // MOVED: another master holds the slot, or a replica
      }
    }
    if (deleted < 1) {
      throw new AssertionError("no lease record of " + name + " on the cluster");
    }
  }
}
