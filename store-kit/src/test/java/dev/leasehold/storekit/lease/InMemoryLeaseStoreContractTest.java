package dev.leasehold.storekit.lease;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.time.Clock;

/** The kit against the reference store: checks the kit itself as much as the store. */
class InMemoryLeaseStoreContractTest extends LeaseStoreContract {
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(Clock.systemUTC());

  @Override
  protected StoreBackend createBackend() {
    return server.client().backend();
  }
}
