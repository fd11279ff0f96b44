package dev.leasehold.core.lease.hold;

import dev.leasehold.core.lease.LeaseDefaults;
import java.time.Duration;

/**
 * The timing rules every lease holder follows, written once: how often a lease is renewed when
 * nothing else is configured, the safety margin, and until when a lease granted to a request is
 * presumed valid on this node's monotonic clock.
 *
 * <p>Why the validity counts from the send: the store starts a lease's TTL when it handles the
 * request, never before the request was sent, so {@code sent + ttl} on this node's ticker is no
 * earlier than the expiry on the store's clock. The margin (a tenth of the TTL) covers the rate
 * difference between the two clocks. An answer that arrives after that instant proves nothing: the
 * lease may already be someone else's.
 */
public final class LeaseTiming {
  private LeaseTiming() {}

  /**
   * {@code renew-every} when none is configured: {@link LeaseDefaults#renewEvery}, the one formula
   * (a third of the TTL, at least one millisecond). Two renewals can then fail before the lease
   * runs out.
   */
  public static Duration defaultRenewEvery(Duration ttl) {
    return LeaseDefaults.renewEvery(ttl);
  }

  /** Safety margin before the presumed expiry: a tenth of the TTL. */
  public static Duration margin(Duration ttl) {
    return Duration.ofNanos(ttl.toNanos() / 10);
  }

  /** The ticker reading until which a lease granted for a request sent at {@code sent} holds. */
  public static long validUntil(long sentNanos, Duration ttl) {
    return sentNanos + ttl.toNanos() - margin(ttl).toNanos();
  }

  /** Whether an answer read at {@code nowNanos} to a request sent at {@code sentNanos} counts. */
  public static boolean answeredInTime(long sentNanos, Duration ttl, long nowNanos) {
    return nowNanos - validUntil(sentNanos, ttl) < 0;
  }
}
