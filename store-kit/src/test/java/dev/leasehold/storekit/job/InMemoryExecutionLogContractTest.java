package dev.leasehold.storekit.job;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.time.Clock;

/** The history kit against the reference log: checks the kit itself as much as the log. */
class InMemoryExecutionLogContractTest extends ExecutionLogContract {
  private final InMemoryExecutionLog shared = new InMemoryExecutionLog();
  private final InMemoryLeaseStore.Shared leases = new InMemoryLeaseStore.Shared(Clock.systemUTC());

  @Override
  protected StoreBackend createBackend() {
    return new StoreBackend() {
      @Override
      public LeaseStore leaseStore() {
        return leases.client();
      }

      @Override
      public ExecutionLog executionLog() {
        return shared;
      }

      @Override
      public void ping() {}

      @Override
      public void close() {}
    };
  }
}
