package dev.leasehold.store.zookeeper;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreBackend;
import java.util.Optional;

/** Leases and history in one ZooKeeper ensemble, through one session. */
final class ZooKeeperStoreBackend implements StoreBackend {
  private final ZooKeeperSession session;
  private final ZooKeeperPaths paths;
  private final ZooKeeperLeaseStore leaseStore;
  private final ZooKeeperExecutionLog executionLog;
  private final ZooKeeperJournal journal;

  ZooKeeperStoreBackend(ZooKeeperSession session, ZooKeeperPaths paths, long maxPerJob) {
    this.session = session;
    this.paths = paths;
    this.leaseStore = new ZooKeeperLeaseStore(session, paths);
    this.executionLog = new ZooKeeperExecutionLog(session, paths, maxPerJob);
    this.journal = new ZooKeeperJournal(session, paths);
  }

  @Override
  public LeaseStore leaseStore() {
    return leaseStore;
  }

  /** Every part: pauses, node records and forgetting, all by the lease store's client. */
  @Override
  public Optional<Pauses> pauses() {
    return Optional.of(leaseStore);
  }

  @Override
  public Optional<NodeRecords> nodeRecords() {
    return Optional.of(leaseStore);
  }

  @Override
  public Optional<Forgetting> forgetting() {
    return Optional.of(leaseStore);
  }

  /** The journal, under {@code <base>/journal} and {@code <base>/journalkeys}. */
  @Override
  public Optional<Journal> journal() {
    return Optional.of(journal);
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
