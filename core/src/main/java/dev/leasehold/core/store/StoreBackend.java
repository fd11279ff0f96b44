package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.LeaseStore;

/** One opened store: its leases and its execution history, closed together. */
public interface StoreBackend extends AutoCloseable {
  LeaseStore leaseStore();

  ExecutionLog executionLog();

  /**
   * Checks that the store answers (one round trip); throws {@link
   * dev.leasehold.core.lease.LeaseStoreException} with a readable message when it does not.
   */
  void ping();

  @Override
  void close();
}
