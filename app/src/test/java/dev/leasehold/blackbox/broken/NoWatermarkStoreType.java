package dev.leasehold.blackbox.broken;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.sql.SqlStoreFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * TEST ONLY and deliberately wrong: store type {@code broken-no-watermark}, the SQL store on
 * MariaDB or H2 with every {@code claim(name, firing, ...)} turned into {@code acquire(name, ...)},
 * so the watermark is never consulted. A replica whose clock is late then claims a firing another
 * replica already ran and released, and runs it again. The black-box suite runs daemons on it to
 * prove that {@code LedgerChecker} catches such duplicates. Found through the test {@code
 * META-INF/services} entry of its factory; never part of the daemon jar.
 */
public final class NoWatermarkStoreType {
  public static final String TYPE = "broken-no-watermark";

  /** Listed in the test {@code META-INF/services/dev.leasehold.core.store.StoreFactory}. */
  public static final class Factory implements StoreFactory {
    @Override
    public Set<String> types() {
      return Set.of(TYPE);
    }

    @Override
    public String validate(StoreSettings settings) {
      return sqlType(settings.url()) == null
          ? "store.url: expected jdbc:mariadb://... or jdbc:h2:..."
          : null;
    }

    @Override
    public StoreBackend open(StoreSettings s) {
      StoreSettings sql =
          new StoreSettings(
              sqlType(s.url()),
              s.url(),
              s.urls(),
              s.username(),
              s.password(),
              s.keyPrefix(),
              s.commandTimeout(),
              s.options());
      StoreBackend backend = new SqlStoreFactory().open(sql);
      LeaseStore broken = new NoWatermarkLeaseStore(backend.leaseStore());
      return new StoreBackend() {
        @Override
        public LeaseStore leaseStore() {
          return broken;
        }

        @Override
        public ExecutionLog executionLog() {
          return backend.executionLog();
        }

        @Override
        public void ping() {
          backend.ping();
        }

        @Override
        public void close() {
          backend.close();
        }
      };
    }

    private static String sqlType(String url) {
      if (url == null) {
        return null;
      }
      return url.startsWith("jdbc:mariadb://")
          ? "mariadb"
          : url.startsWith("jdbc:h2:") ? "h2" : null;
    }
  }

  /**
   * Ignores the firing: plain mutual exclusion, exactly the naive "insert a row as a lock" that
   * duplicates under clock skew. It behaves on the start-up self-check's scratch names only (a bug
   * that hides from a probe), so the daemons start and the ledger checker is the one that must
   * catch the duplicates.
   */
  private record NoWatermarkLeaseStore(LeaseStore delegate) implements LeaseStore {
    @Override
    public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
      return claim(name, firing, holder, ttl)
          .map(ClaimResult::won)
          .orElseGet(() -> ClaimResult.refusal(inspect(name), firing));
    }

    @Override
    public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
      if (StoreSelfCheck.isScratch(name)) {
        return delegate.claim(name, firing, holder, ttl);
      }
      return delegate.acquire(name, holder, ttl);
    }

    @Override
    public Optional<Lease> acquire(String name, String holder, Duration ttl) {
      return delegate.acquire(name, holder, ttl);
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      return delegate.renew(lease, ttl);
    }

    @Override
    public boolean release(Lease lease) {
      return delegate.release(lease);
    }

    @Override
    public Optional<LeaseState> inspect(String name) {
      return delegate.inspect(name);
    }

    @Override
    public List<LeaseState> list() {
      return delegate.list();
    }
  }
}
