package dev.leasehold.store.zookeeper;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;

/** Leases and history in one ZooKeeper ensemble, through one session. */
final class ZooKeeperStoreBackend implements StoreBackend {
  private final ZooKeeperSession session;
  private final ZooKeeperPaths paths;
  private final ZooKeeperLeaseStore leaseStore;
  private final ZooKeeperExecutionLog executionLog;

  ZooKeeperStoreBackend(ZooKeeperSession session, ZooKeeperPaths paths, long maxPerJob) {
    this.session = session;
    this.paths = paths;
    this.leaseStore = new ZooKeeperLeaseStore(session, paths);
    this.executionLog = new ZooKeeperExecutionLog(session, paths, maxPerJob);
  }

  @Override
  public LeaseStore leaseStore() {
    return leaseStore;
  }

  @Override
  public ExecutionLog executionLog() {
    return executionLog;
  }

  /** A write (the clock node): answers only when the ensemble has a quorum. */
  @Override
  public void ping() {
    paths.ensureLayout(session);
    session.serverNow(paths.clock());
  }

  @Override
  public void close() {
    session.close();
  }

  @Override
  public String toString() {
    return leaseStore.toString();
  }
}
