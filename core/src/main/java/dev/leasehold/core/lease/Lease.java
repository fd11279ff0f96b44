package dev.leasehold.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A lease held on a name: proof that this holder, and nobody else, may run the job of that name
 * until the lease expires on the store's clock.
 *
 * @param name the lease name (a job name), validated by {@link LeaseNames}
 * @param holder the node that holds it
 * @param token random secret that proves ownership to {@link LeaseStore#renew} and {@link
 *     LeaseStore#release}; never logged
 * @param fence fencing token (G6): strictly larger than every earlier fence of this name
 * @param ttl the time to live the lease was granted or last renewed with
 * @param expiresAt expiry as reported by the store; informational only, since it is on the store's
 *     clock and the holder must not compare it with its own
 */
public record Lease(
    String name, String holder, String token, long fence, Duration ttl, Instant expiresAt) {

  public Lease {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(ttl, "ttl");
  }

  /** The same lease after a successful renewal. */
  public Lease renewed(Duration newTtl, Instant newExpiresAt) {
    return new Lease(name, holder, token, fence, newTtl, newExpiresAt);
  }

  @Override
  public String toString() {
    // the token is a secret: keep it out of logs
    return "Lease[name=" + name + ", holder=" + holder + ", fence=" + fence + ", ttl=" + ttl + "]";
  }
}
