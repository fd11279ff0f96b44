package dev.leasehold.storekit.lease;

import dev.leasehold.core.lease.LeaseStore;
import org.junit.jupiter.api.Nested;

/**
 * The specification of a {@link LeaseStore}, grouped by the guarantee each group protects. Every
 * store passes it against a real server. A store's test class says only how to open a client:
 *
 * <pre>{@code
 * class PostgresLeaseStoreContractTest extends LeaseStoreContract {
 *   @Override
 *   protected LeaseStore createStore() {
 *     return ...; // a new, independent client on the same database each call
 *   }
 * }
 * }</pre>
 *
 * <p>{@link #createStore()} must return an independent client (its own connection or pool) on the
 * same database each time, so races between several replicas are tested, not only between threads.
 * The kit closes every client it opened after each test. Each test uses fresh random lease names,
 * so stores need no cleaning between tests. Class-level set-up (a server, a database) goes in the
 * subclass's {@code @BeforeAll}/{@code @AfterAll}; JUnit runs it around all the groups.
 *
 * <p>Each group is a {@code @Nested} class, also published on its own ({@link ClaimCases}, {@link
 * FenceCases}, …) for a store that wants to run one group at a time.
 */
public abstract class LeaseStoreContract {

  /** A new, independent client on the same database. Closed by the kit after each test. */
  protected abstract LeaseStore createStore();

  /** G1, G2: a firing is claimed once, ever; late and older firings are refused. */
  @Nested
  class ClaimsAndTheWatermark extends ClaimCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** The reason of a refusal ({@code tryClaim}): held by an earlier run, or already run. */
  @Nested
  class ClaimReasons extends ClaimReasonCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** {@code claimAll}: each entry decided as a single claim, answers in request order. */
  @Nested
  class Batches extends BatchClaimCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** G6: fences only ever rise. */
  @Nested
  class Fences extends FenceCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** G3: expiry on the store's clock. */
  @Nested
  class ExpiryOnTheStoresClock extends ExpiryCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** G4: renewal extends a live lease and never revives an expired one. */
  @Nested
  class Renewal extends RenewalCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** G7: release and renewal by token only. */
  @Nested
  class ReleaseByTokenOnly extends ReleaseCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** G1, G6 under contention: one winner per firing, single or batched. */
  @Nested
  class Races extends RaceCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** Failures the caller causes: bad input is refused before the store is touched. */
  @Nested
  class Failures extends BadInputCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** What {@code inspect} and {@code list} show; which names are distinct. */
  @Nested
  class StateAndNames extends StateCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** A cluster-wide pause, decided in the claim's own atomic step. */
  @Nested
  class Pauses extends PauseCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** Node records: published, read back, refreshed, expiring on their own. */
  @Nested
  class Nodes extends NodeCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** Forgetting a free lease record: gone, never a held one, fences still rise after it. */
  @Nested
  class Forget extends ForgetCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** The start-up conformance self-check passes on this store. */
  @Nested
  class SelfCheck extends SelfCheckCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }

  /** A counted lease (a concurrency group's slots): at most max holders at once. */
  @Nested
  class CountedLeases extends CountedLeaseCases {
    @Override
    protected LeaseStore createStore() {
      return LeaseStoreContract.this.createStore();
    }
  }
}
