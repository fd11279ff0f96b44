package dev.leasehold.core.store;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The leases of one {@link Namespace}: each name is mapped to its stored form on the way in and
 * back on the way out, and {@link #list} keeps only this namespace's names. Every call is one call
 * of the store underneath, so each stays the one atomic step the port promises.
 */
final class NamespacedLeaseStore implements LeaseStore {
  private final LeaseStore delegate;
  private final Namespace namespace;

  NamespacedLeaseStore(LeaseStore delegate, Namespace namespace) {
    this.delegate = delegate;
    this.namespace = namespace;
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    return bare(delegate.tryClaim(namespace.toStore(name), firing, holder, ttl));
  }

  @Override
  public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
    LeaseArguments.batch(requests);
    List<ClaimRequest> stored =
        requests.stream()
            .map(
                r -> new ClaimRequest(namespace.toStore(r.name()), r.firing(), r.holder(), r.ttl()))
            .toList();
    return delegate.claimAll(stored).stream().map(this::bare).toList();
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    return delegate.acquire(namespace.toStore(name), holder, ttl).map(this::bare);
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return delegate.renew(stored(lease), ttl);
  }

  @Override
  public boolean release(Lease lease) {
    return delegate.release(stored(lease));
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    return delegate.inspect(namespace.toStore(name)).flatMap(this::bare);
  }

  @Override
  public List<LeaseState> list() {
    return delegate.list().stream().flatMap(s -> bare(s).stream()).toList();
  }

  @Override
  public Optional<Instant> storeTime() {
    return delegate.storeTime();
  }

  @Override
  public void close() {
    delegate.close();
  }

  private Lease stored(Lease lease) {
    LeaseArguments.lease(lease);
    String name = namespace.toStore(lease.name());
    return name.equals(lease.name())
        ? lease
        : new Lease(
            name, lease.holder(), lease.token(), lease.fence(), lease.ttl(), lease.expiresAt());
  }

  private Lease bare(Lease stored) {
    String name = namespace.fromStore(stored.name()).orElse(stored.name());
    return name.equals(stored.name())
        ? stored
        : new Lease(
            name,
            stored.holder(),
            stored.token(),
            stored.fence(),
            stored.ttl(),
            stored.expiresAt());
  }

  private ClaimResult bare(ClaimResult r) {
    return r.lease() == null
        ? r
        : new ClaimResult(r.kind(), bare(r.lease()), r.holder(), r.watermark(), r.failure());
  }

  private Optional<LeaseState> bare(LeaseState s) {
    return namespace
        .fromStore(s.name())
        .map(
            name ->
                name.equals(s.name())
                    ? s
                    : new LeaseState(
                        name,
                        s.holder(),
                        s.leaseUntil(),
                        s.lastFire(),
                        s.fence(),
                        s.held(),
                        s.pause()));
  }
}
