package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import org.junit.jupiter.api.Test;

/**
 * The start-up conformance self-check passes on the store: what {@code run} and {@code validate
 * --connect} will find on this server. Its duration is printed (never asserted) for the
 * compatibility page. A store that can forget keeps none of the check's scratch records after it.
 */
public abstract class SelfCheckCases extends LeaseStoreCases {

  @Test
  void theConformanceSelfCheckPassesTwiceOnTheSameNames() {
    StoreSelfCheck check =
        new StoreSelfCheck(StoreSettings.of("contract", "contract"), freshName());
    for (int run = 1; run <= 2; run++) {
      StoreBackend second = newBackend();
      second.leaseStore().inspect(freshName()); // connected: the time below is the check's alone
      long start = System.nanoTime();
      check.run(backend, second);
      System.out.printf(
          "self-check on %s, run %d: %d ms%n",
          store.getClass().getSimpleName(), run, (System.nanoTime() - start) / 1_000_000);
    }
    if (backend.forgetting().isPresent()) {
      // each store's kit runs on a database (or key prefix) of its own: nothing else checks here
      assertThat(store.list())
          .as("scratch records forgotten after the checks")
          .filteredOn(s -> StoreSelfCheck.isScratch(s.name()))
          .isEmpty();
    } else {
      assertThat(store.list())
          .filteredOn(s -> StoreSelfCheck.isScratch(s.name()))
          .isNotEmpty()
          .allSatisfy(s -> assertThat(s.held()).as("%s released", s.name()).isFalse());
    }
  }
}
