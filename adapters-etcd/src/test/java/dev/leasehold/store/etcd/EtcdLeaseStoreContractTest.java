package dev.leasehold.store.etcd;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole contract kit against one real etcd member started for this class. */
class EtcdLeaseStoreContractTest extends LeaseStoreContract {
  private static EtcdServers etcd;

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdServers.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Override
  protected StoreBackend createBackend() {
    return new EtcdStoreFactory().open(etcd.settings());
  }
}
