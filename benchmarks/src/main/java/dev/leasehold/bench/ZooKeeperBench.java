package dev.leasehold.bench;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.store.zookeeper.ZooKeeperServers;
import dev.leasehold.store.zookeeper.ZooKeeperStoreFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * The ZooKeeper store against one standalone ZooKeeper 3.8 server (the Debian package) this
 * benchmark starts. Floors: {@code exists} and {@code setData} of one node on a plain ZooKeeper
 * client. No ShedLock counterpart is measured.
 */
public class ZooKeeperBench extends LeaseBench {
  private ZooKeeperServers zookeeper;
  private ZooKeeper raw;
  private String node;

  @Override
  protected StoreBackend open() throws Exception {
    zookeeper = ZooKeeperServers.start(1);
    CountDownLatch connected = new CountDownLatch(1);
    raw =
        new ZooKeeper(
            zookeeper.connectString(),
            30_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    if (!connected.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("ZooKeeper did not connect");
    }
    node = "/" + RUN;
    raw.create(node, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    return new ZooKeeperStoreFactory().open(zookeeper.settings());
  }

  @Override
  protected void close() throws Exception {
    raw.close();
    zookeeper.close();
  }

  /** The floor: {@code exists} of one node. */
  @Benchmark
  public Stat raw_ping() throws Exception {
    return raw.exists(node, false);
  }

  /** One {@code setData}: the floor of a write through the ensemble's leader. */
  @Benchmark
  public Stat raw_setData() throws Exception {
    return raw.setData(node, new byte[] {1}, -1);
  }
}
