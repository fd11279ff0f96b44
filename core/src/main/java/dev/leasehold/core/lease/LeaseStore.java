package dev.leasehold.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The driven port every store implements. Each method is <b>one atomic step on the store</b>: no
 * read-then-write from the client, so two replicas can never both see "free" and both win.
 *
 * <p>Answers: an empty {@code Optional} or {@code false} means "someone else has it" (a normal
 * outcome). A {@link LeaseStoreException} means the store could not be asked or the answer is
 * ambiguous; callers treat it as not acquired (fail closed, G8). Bad arguments (null, blank,
 * invalid names, TTL below one millisecond) throw {@link IllegalArgumentException} before the store
 * is touched.
 *
 * <p>Every time is the store's (database {@code now()}, Redis {@code PX}, Mongo {@code $$NOW})
 * wherever the store has a clock, so replicas with skewed clocks agree on expiry (G2, G3).
 *
 * <p>The lease operations only: what else a store keeps has a port of its own ({@link Pauses},
 * {@link NodeRecords}, {@link Forgetting}), which its {@link dev.leasehold.core.store.StoreBackend}
 * returns when the store has it.
 *
 * <p>The behaviour is specified by the contract test kit {@code LeaseStoreContract} in the {@code
 * leasehold-store-kit} artifact; every implementation passes it against a real server.
 */
public interface LeaseStore extends AutoCloseable {

  /**
   * Claims the lease for one scheduled firing and says why a refusal happened. Succeeds only if no
   * live lease exists on {@code name} <b>and</b> the watermark (the last firing claimed under this
   * name) is earlier than {@code firing}. On success the watermark becomes {@code firing} and the
   * fence is incremented. This single operation gives G1 (one run per firing), G2 (a late replica
   * is refused by the watermark) and G3 (an expired lease is free again).
   *
   * <p>A refusal is {@link ClaimResult.Kind#HELD} by a run of an earlier firing (with its holder
   * and the watermark, when the store can name them in the claim's own round trip; else from a read
   * after it, which may see a later state: the reason is a hint for waiting, never a basis for
   * running), {@link ClaimResult.Kind#ALREADY_RUN}, or {@link ClaimResult.Kind#PAUSED} on a store
   * with {@link Pauses}.
   *
   * @param firing the scheduled instant, compared at millisecond precision
   * @throws LeaseStoreException when the store cannot be asked; never returns {@code FAILED}
   */
  ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl);

  /**
   * {@link #tryClaim} for a caller that needs only the lease.
   *
   * @return the lease, or empty when the lease is held or the firing is not newer than the
   *     watermark
   */
  default Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    return tryClaim(name, firing, holder, ttl).leaseIfWon();
  }

  /**
   * Claims several distinct names at once (firings that came due together), with per-claim
   * semantics exactly those of {@link #tryClaim}: each entry wins or is refused on its own, and the
   * answers come back in the order of {@code requests}. Stores override this to send the whole
   * batch in one round trip (one script, one statement, one bulk write); the default claims one by
   * one. A store error is reported per entry as {@link ClaimResult.Kind#FAILED} (a batch that could
   * not be sent fails every entry), so that claims already won are never lost to a later error.
   *
   * @throws IllegalArgumentException when a request is invalid or a name appears twice, before the
   *     store is touched
   */
  default List<ClaimResult> claimAll(List<ClaimRequest> requests) {
    LeaseArguments.batch(requests);
    List<ClaimResult> results = new java.util.ArrayList<>(requests.size());
    for (ClaimRequest r : requests) {
      try {
        results.add(tryClaim(r.name(), r.firing(), r.holder(), r.ttl()));
      } catch (LeaseStoreException e) {
        results.add(ClaimResult.failed(e));
      }
    }
    return results;
  }

  /**
   * Plain mutual exclusion: succeeds when no live lease exists on {@code name}; increments the
   * fence but leaves the watermark alone. Used for manual triggers and the method decorator.
   */
  Optional<Lease> acquire(String name, String holder, Duration ttl);

  /**
   * Extends a live lease to {@code ttl} from now (store clock). Succeeds only when the token
   * matches and the lease has not expired: an expired lease may already belong to someone else, so
   * it cannot be revived.
   */
  boolean renew(Lease lease, Duration ttl);

  /**
   * Frees the lease if {@code lease.token()} still holds it. The watermark and the fence counter
   * stay, so a released firing can never be claimed again and fences keep rising.
   */
  boolean release(Lease lease);

  /** The stored state of one name, empty when the name was never leased. */
  Optional<LeaseState> inspect(String name);

  /** The stored state of every name in this store (and key prefix), sorted by name. */
  List<LeaseState> list();

  /**
   * The store's clock as it reads now, in one cheap round trip (SQL {@code SELECT now}, Redis
   * {@code TIME}, MongoDB {@code hello.localTime}): the clock that {@link Lease#expiresAt()} and
   * expiry are on. A scheduler reads it at start and now and then to fire by the store's clock
   * rather than its own. Empty for a store whose expiry runs on no wall clock a client can read
   * (etcd's leases count their TTL on the leader; the default).
   *
   * @throws LeaseStoreException when the store cannot be asked
   */
  default Optional<Instant> storeTime() {
    return Optional.empty();
  }

  /** Releases client resources (connections, pools). Leases themselves are left as they are. */
  @Override
  default void close() {}
}
