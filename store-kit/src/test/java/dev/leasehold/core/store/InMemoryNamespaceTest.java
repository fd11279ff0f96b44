package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.time.Clock;

/** The namespace cases against the reference store: checks the cases as much as the store. */
class InMemoryNamespaceTest extends NamespaceCases {
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(Clock.systemUTC());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();

  @Override
  protected StoreBackend createBackend() {
    return new StoreBackend() {
      @Override
      public LeaseStore leaseStore() {
        return server.client();
      }

      @Override
      public ExecutionLog executionLog() {
        return history;
      }

      @Override
      public void ping() {}

      @Override
      public void close() {}
    };
  }
}
