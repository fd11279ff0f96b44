package dev.leasehold.app.testing;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test-only store type {@code memory} (url {@code memory:NAME}): core's reference in-memory store,
 * which a test can make unreachable, to drive the daemon through a store outage. Found by the same
 * ServiceLoader discovery of StoreFactory as the real adapters, through the test classpath only;
 * the daemon jar never contains it.
 */
public final class MemoryStoreType {
  private static final Map<String, Server> SERVERS = new ConcurrentHashMap<>();

  /** One named in-memory "server": leases, history and a reachability switch. */
  public static final class Server {
    public final InMemoryLeaseStore.Shared leases =
        new InMemoryLeaseStore.Shared(Clock.systemUTC());
    public final InMemoryExecutionLog history = new InMemoryExecutionLog();
    volatile boolean reachable = true;
    private final java.util.concurrent.atomic.AtomicInteger opens =
        new java.util.concurrent.atomic.AtomicInteger();

    /** How often a daemon tried to open this store. */
    public int openAttempts() {
      return opens.get();
    }

    /**
     * While true, newly opened clients forget the watermark once a firing's lease was released (a
     * "compatible" server that gets one rule wrong): the start-up self-check must refuse them.
     */
    public void setForgetsTheWatermark(boolean broken) {
      forgetsTheWatermark = broken;
    }

    volatile boolean forgetsTheWatermark;

    public void setReachable(boolean up) {
      reachable = up;
      leases.setReachable(up);
    }
  }

  public static Server server(String name) {
    return SERVERS.computeIfAbsent(name, n -> new Server());
  }

  /** Listed in the test {@code META-INF/services/dev.leasehold.core.store.StoreFactory}. */
  public static final class Factory implements StoreFactory {
    @Override
    public Set<String> types() {
      return Set.of("memory");
    }

    @Override
    public String validate(StoreSettings settings) {
      String url = settings.url();
      return url != null && url.startsWith("memory:") ? null : "store.url: expected memory:NAME";
    }

    @Override
    public StoreBackend open(StoreSettings settings) {
      Server server = server(settings.url().substring("memory:".length()));
      server.opens.incrementAndGet();
      if (!server.reachable) {
        throw new dev.leasehold.core.lease.LeaseStoreException("memory store is down");
      }
      InMemoryLeaseStore client = server.leases.client();
      boolean broken = server.forgetsTheWatermark;
      LeaseStore store = broken ? new ForgetsTheWatermark(client) : client;
      // the broken client keeps nothing but leases; the reference client every part
      Optional<InMemoryLeaseStore> parts = broken ? Optional.empty() : Optional.of(client);
      return new StoreBackend() {
        @Override
        public LeaseStore leaseStore() {
          return store;
        }

        @Override
        public Optional<Pauses> pauses() {
          return parts.map(c -> c);
        }

        @Override
        public Optional<NodeRecords> nodeRecords() {
          return parts.map(c -> c);
        }

        @Override
        public Optional<Forgetting> forgetting() {
          return parts.map(c -> c);
        }

        @Override
        public Optional<dev.leasehold.core.lease.Journal> journal() {
          return parts.flatMap(c -> c.backend().journal());
        }

        @Override
        public ExecutionLog executionLog() {
          return server.history;
        }

        @Override
        public void ping() {
          if (!server.reachable) {
            throw new dev.leasehold.core.lease.LeaseStoreException("memory store is down");
          }
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Claims a firing already run as long as nobody holds the lease. */
  private record ForgetsTheWatermark(LeaseStore delegate) implements LeaseStore {
    @Override
    public ClaimResult tryClaim(
        String name, java.time.Instant firing, String holder, java.time.Duration ttl) {
      return claim(name, firing, holder, ttl)
          .map(ClaimResult::won)
          .orElseGet(() -> ClaimResult.refusal(inspect(name), firing));
    }

    @Override
    public java.util.Optional<dev.leasehold.core.lease.Lease> claim(
        String name, java.time.Instant firing, String holder, java.time.Duration ttl) {
      return delegate
          .claim(name, firing, holder, ttl)
          .or(() -> delegate.acquire(name, holder, ttl));
    }

    @Override
    public java.util.Optional<dev.leasehold.core.lease.Lease> acquire(
        String name, String holder, java.time.Duration ttl) {
      return delegate.acquire(name, holder, ttl);
    }

    @Override
    public boolean renew(dev.leasehold.core.lease.Lease lease, java.time.Duration ttl) {
      return delegate.renew(lease, ttl);
    }

    @Override
    public boolean release(dev.leasehold.core.lease.Lease lease) {
      return delegate.release(lease);
    }

    @Override
    public java.util.Optional<dev.leasehold.core.lease.LeaseState> inspect(String name) {
      return delegate.inspect(name);
    }

    @Override
    public java.util.List<dev.leasehold.core.lease.LeaseState> list() {
      return delegate.list();
    }
  }
}
