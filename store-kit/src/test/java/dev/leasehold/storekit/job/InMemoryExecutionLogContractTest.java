package dev.leasehold.storekit.job;

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
    return leases.client().backend(shared);
  }
}
