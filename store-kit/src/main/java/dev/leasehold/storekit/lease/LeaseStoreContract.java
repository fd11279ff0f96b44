package dev.leasehold.storekit.lease;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import org.junit.jupiter.api.Nested;

/**
 * The specification of a {@link LeaseStore}, grouped by the guarantee each group protects. Every
 * store passes it against a real server. A store's test class says only how to open a client:
 *
 * <pre>{@code
 * class PostgresLeaseStoreContractTest extends LeaseStoreContract {
 *   @Override
 *   protected StoreBackend createBackend() {
 *     return ...; // a new, independent client on the same database each call
 *   }
 * }
 * }</pre>
 *
 * <p>The groups of the lease operations run on every store; the groups of a part ({@code Pauses},
 * {@code Nodes}, {@code Forget}, {@code Journals}) run when the client has that part and are
 * skipped when its backend returns none. {@link #createBackend()} must return an independent client
 * (its own connection or pool) on the same database each time, so races between several replicas
 * are tested, not only between threads. The kit closes every client it opened after each test. Each
 * test uses fresh random lease names, so stores need no cleaning between tests. Class-level set-up
 * (a server, a database) goes in the subclass's {@code @BeforeAll}/{@code @AfterAll}; JUnit runs it
 * around all the groups.
 *
 * <p>Each group is a {@code @Nested} class, also published on its own ({@link ClaimCases}, {@link
 * FenceCases}, …) for a store that wants to run one group at a time.
 */
public abstract class LeaseStoreContract {

  /**
   * A new, independent client on the same database, with the parts its store has (its {@link
   * StoreBackend#pauses}, {@link StoreBackend#nodeRecords}, {@link StoreBackend#forgetting}, {@link
   * StoreBackend#journal}). Closed by the kit after each test.
   */
  protected abstract StoreBackend createBackend();

  /** G1, G2: a firing is claimed once, ever; late and older firings are refused. */
  @Nested
  class ClaimsAndTheWatermark extends ClaimCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** The reason of a refusal ({@code tryClaim}): held by an earlier run, or already run. */
  @Nested
  class ClaimReasons extends ClaimReasonCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** {@code claimAll}: each entry decided as a single claim, answers in request order. */
  @Nested
  class Batches extends BatchClaimCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** G6: fences only ever rise. */
  @Nested
  class Fences extends FenceCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** G3: expiry on the store's clock. */
  @Nested
  class ExpiryOnTheStoresClock extends ExpiryCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** G4: renewal extends a live lease and never revives an expired one. */
  @Nested
  class Renewal extends RenewalCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** G7: release and renewal by token only. */
  @Nested
  class ReleaseByTokenOnly extends ReleaseCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** G1, G6 under contention: one winner per firing, single or batched. */
  @Nested
  class Races extends RaceCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** Failures the caller causes: bad input is refused before the store is touched. */
  @Nested
  class Failures extends BadInputCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** What {@code inspect} and {@code list} show; which names are distinct. */
  @Nested
  class StateAndNames extends StateCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** A cluster-wide pause, decided in the claim's own atomic step. */
  @Nested
  class Pauses extends PauseCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** Node records: published, read back, refreshed, expiring on their own. */
  @Nested
  class Nodes extends NodeCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** Forgetting a free lease record: gone, never a held one, fences still rise after it. */
  @Nested
  class Forget extends ForgetCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** The journal: streams newest first, pruned by time, write-once keys decided once. */
  @Nested
  class Journals extends JournalCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** The start-up conformance self-check passes on this store. */
  @Nested
  class SelfCheck extends SelfCheckCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }

  /** A counted lease (a concurrency group's slots): at most max holders at once. */
  @Nested
  class CountedLeases extends CountedLeaseCases {
    @Override
    protected StoreBackend createBackend() {
      return LeaseStoreContract.this.createBackend();
    }
  }
}
