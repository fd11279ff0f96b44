package dev.leasehold.store.etcd;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.job.ScopedHistoryCases;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What is particular to etcd's history (the kit is EtcdExecutionLogContractTest): the cap per job
 * (exact), prefixes. An etcd process the test starts.
 */
class EtcdExecutionLogTest extends ScopedHistoryCases {
  private static EtcdServers etcd;
  private static final String PREFIX = EtcdServers.freshPrefix();

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
  protected StoreBackend openScoped(String scope, Map<String, String> options) {
    return new EtcdStoreFactory()
        .open(
            new StoreSettings(
                "etcd",
                null,
                etcd.urls(),
                null,
                null,
                scope.isEmpty() ? PREFIX : PREFIX + scope + "/",
                EtcdServers.TIMEOUT,
                options));
  }

  @Override
  protected int capSlack() {
    return 0;
  }
}
