package dev.leasehold.store.etcd;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import java.time.Clock;
import java.util.Optional;

/** Leases and history in one etcd cluster, through one client. */
final class EtcdStoreBackend implements dev.leasehold.core.store.StoreBackend {
  private final EtcdClient client;
  private final EtcdKeys keys;
  private final EtcdLeaseStore leaseStore;
  private final EtcdExecutionLog executionLog;
  private final EtcdJournal journal;

  EtcdStoreBackend(EtcdClient client, EtcdKeys keys, long maxPerJob) {
    this.client = client;
    this.keys = keys;
    this.leaseStore = new EtcdLeaseStore(client, keys, Clock.systemUTC());
    this.executionLog = new EtcdExecutionLog(client, keys, maxPerJob, Clock.systemUTC());
    this.journal = new EtcdJournal(client, keys.toString());
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

  /** The journal, under {@code <prefix>journal/} and {@code <prefix>journalkey/}. */
  @Override
  public Optional<Journal> journal() {
    return Optional.of(journal);
  }

  @Override
  public Optional<Forgetting> forgetting() {
    return Optional.of(leaseStore);
  }

  @Override
  public ExecutionLog executionLog() {
    return executionLog;
  }

  /** A linearizable read: answers only when the member reaches a leader with a quorum. */
  @Override
  public void ping() {
    client.call("/v3/kv/range", EtcdKeys.keyRange(keys.ping()).put("count_only", true));
  }

  @Override
  public void close() {
    leaseStore.close();
  }

  @Override
  public String toString() {
    return leaseStore.toString();
  }
}
