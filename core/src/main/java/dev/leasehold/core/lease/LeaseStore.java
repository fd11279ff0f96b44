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
 * <p>The behaviour is specified by the contract test kit {@code LeaseStoreContract} in the {@code
 * leasehold-store-kit} artifact; every implementation passes it against a real server.
 */
public interface LeaseStore extends AutoCloseable {

  /**
   * Claims the lease for one scheduled firing. Succeeds only if no live lease exists on {@code
   * name} <b>and</b> the watermark (the last firing claimed under this name) is earlier than {@code
   * firing}. On success the watermark becomes {@code firing} and the fence is incremented. This
   * single operation gives G1 (one run per firing), G2 (a late replica is refused by the watermark)
   * and G3 (an expired lease is free again).
   *
   * @param firing the scheduled instant, compared at millisecond precision
   * @return the lease, or empty when the lease is held or the firing is not newer than the
   *     watermark
   */
  Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl);

  /**
   * {@link #claim} that also says why a refusal happened ({@link ClaimResult.Kind#HELD} by a run of
   * an earlier firing, or {@link ClaimResult.Kind#ALREADY_RUN}). Stores that can decide the reason
   * in the claim's own round trip override this (and implement {@link #claim} through it); the
   * default asks {@link #inspect} after a refusal, which costs a second round trip and may see a
   * later state: the reason is a hint for waiting, never a basis for running.
   *
   * @throws LeaseStoreException when the store cannot be asked; never returns {@code FAILED}
   */
  default ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    Optional<Lease> won = claim(name, firing, holder, ttl);
    if (won.isPresent()) {
      return ClaimResult.won(won.get());
    }
    return ClaimResult.refusal(inspect(name), LeaseArguments.firing(firing));
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

  /**
   * Whether this store keeps cluster-wide pauses. A store that does not refuses {@link #pause} and
   * {@link #resume} with {@link UnsupportedOperationException}, and its claims never answer {@link
   * ClaimResult.Kind#PAUSED}.
   */
  default boolean supportsPause() {
    return false;
  }

  /**
   * Pauses {@code name} cluster-wide, in one atomic step on the store. Once this has returned,
   * every claim of a firing of {@code name}, from any client, is decided against the pause in the
   * claim's own atomic step: a firing newer than the watermark answers {@link
   * ClaimResult.Kind#PAUSED} (the watermark moves to it, so exactly one claimant records it, but no
   * lease starts and the fence stays), an older one {@link ClaimResult.Kind#ALREADY_RUN}; never
   * {@link ClaimResult.Kind#WON}. A live lease is left alone: the run it guards finishes, unless
   * {@code stopRunning}, which makes the store refuse every renewal of {@code name} while the pause
   * lasts (the holder stops as on a lost lease). {@link #acquire} is not affected: a manual trigger
   * is an explicit request. A repeated pause keeps the first {@code since} and replaces the rest.
   *
   * @param by the node or user that pauses (validated as a holder)
   * @param reason free text, at most {@link Pause#MAX_REASON} characters, or {@code null}
   * @return the pause as stored
   */
  default Pause pause(String name, String by, String reason, boolean stopRunning) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep pauses");
  }

  /**
   * Ends the pause of {@code name} in one atomic step. With {@code catchUp}, when the watermark
   * stands at a firing that a claim recorded as paused, the same step lowers the watermark by one
   * millisecond: that firing, and no earlier one, can then be claimed once more (once, since the
   * claim moves the watermark back to it). Without {@code catchUp} every firing recorded as paused
   * stays spent.
   *
   * @return whether {@code name} was paused
   */
  default boolean resume(String name, boolean catchUp) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep pauses");
  }

  /**
   * Whether this store keeps node records ({@link #publishNode}, {@link #nodes}). A store that does
   * not refuses both with {@link UnsupportedOperationException}.
   */
  default boolean supportsNodes() {
    return false;
  }

  /**
   * Writes {@code node} as its daemon's record, replacing the one it published before: live until
   * {@code node.lastSeen() + ttl}, then stale, and gone on its own after {@link
   * NodeRecord#keepFor}{@code (ttl)} (by the store's own expiry where it has one; else dropped by
   * the next {@link #nodes} that sees it past {@link NodeRecord#keptUntil}). Not one of the claim's
   * atomic steps: a lost or late record changes what {@code status} shows, never who runs a job.
   */
  default void publishNode(NodeRecord node, Duration ttl) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no node records");
  }

  /**
   * Every node record the store keeps (live or stale, each with its {@link NodeRecord#expiresAt}),
   * sorted by node id; records past {@link NodeRecord#keptUntil} on this client's clock are left
   * out (and may be removed).
   */
  default List<NodeRecord> nodes() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no node records");
  }

  /**
   * Whether this store can delete a lease record ({@link #forget}). A store that cannot refuses
   * {@link #forget} with {@link UnsupportedOperationException}; its records of removed jobs and of
   * the self-check's scratch names stay.
   */
  default boolean supportsForget() {
    return false;
  }

  /**
   * Deletes the lease record of {@code name}, in one atomic step on the store and only when no
   * lease on it is live (on the store's clock) and it is not paused; a held or paused record is
   * kept. The execution history is never touched, and the fence never goes back: the store's
   * high-water mark of the fence (kept apart from the record, or a floor the store raises when it
   * deletes) stays, so a later claim of the same name is given a fence above every fence given
   * before. The watermark goes with the record where the record keeps it: a firing already run
   * could be claimed again, which is why only names no configuration uses (after a long grace) and
   * the self-check's scratch names are forgotten. For a scratch name ({@code
   * _leasehold.self-check.} prefix) the store may delete its high-water mark too: nothing is fenced
   * by it.
   *
   * @return whether a record was deleted (false when there was none, or it is held or paused)
   */
  default boolean forget(String name) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot forget");
  }

  /** The stored state of one name, empty when the name was never leased. */
  Optional<LeaseState> inspect(String name);

  /** The stored state of every name in this store (and key prefix), sorted by name. */
  List<LeaseState> list();

  /** Releases client resources (connections, pools). Leases themselves are left as they are. */
  @Override
  default void close() {}
}
