package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.lease.RequestSignals;
import java.util.Optional;

/**
 * One opened store: its leases and its execution history, closed together, and the ports of what
 * else it keeps. A store says here, once, which parts it has: an empty port is one it has not (no
 * cluster-wide pauses, no node records, no deleting of lease records), and the callers of that part
 * say so or leave it out.
 */
public interface StoreBackend extends AutoCloseable {
  LeaseStore leaseStore();

  ExecutionLog executionLog();

  /**
   * Cluster-wide pauses, decided in the claim ({@link Pauses}); empty when the store keeps none.
   */
  default Optional<Pauses> pauses() {
    return Optional.empty();
  }

  /** Node records ({@link NodeRecords}); empty when the store keeps none. */
  default Optional<NodeRecords> nodeRecords() {
    return Optional.empty();
  }

  /** Deleting free lease records ({@link Forgetting}); empty when the store cannot. */
  default Optional<Forgetting> forgetting() {
    return Optional.empty();
  }

  /**
   * The store's journal (audit trail, check pings, chain hand-offs, backfill requests, write-once
   * keys), when the store keeps one.
   */
  default Optional<Journal> journal() {
    return Optional.empty();
  }

  /**
   * The store's notification of new trigger requests ({@link RequestSignals}), when it has one;
   * without it the daemons poll the request marker.
   */
  default Optional<RequestSignals> requestSignals() {
    return Optional.empty();
  }

  /**
   * Checks that the store answers (one round trip); throws {@link
   * dev.leasehold.core.lease.LeaseStoreException} with a readable message when it does not.
   */
  void ping();

  @Override
  void close();
}
