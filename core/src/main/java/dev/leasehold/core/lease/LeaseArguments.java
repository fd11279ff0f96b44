package dev.leasehold.core.lease;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;

/**
 * Argument checks and token generation shared by every {@link LeaseStore}, so that all stores
 * refuse the same bad input with the same {@link IllegalArgumentException}.
 */
public final class LeaseArguments {
  private static final SecureRandom RANDOM = new SecureRandom();

  private LeaseArguments() {}

  public static String name(String name) {
    return LeaseNames.require(name);
  }

  public static String holder(String holder) {
    if (holder == null || holder.isBlank()) {
      throw new IllegalArgumentException("holder must not be null or blank");
    }
    if (holder.length() > 200) {
      throw new IllegalArgumentException("holder must be at most 200 characters");
    }
    return holder;
  }

  /** The TTL in whole milliseconds; at least one. */
  public static long ttlMillis(Duration ttl) {
    if (ttl == null) {
      throw new IllegalArgumentException("ttl must not be null");
    }
    if (ttl.isNegative() || ttl.isZero() || ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1ms, got " + ttl);
    }
    return ttl.toMillis();
  }

  /** Firings are compared at millisecond precision by every store. */
  public static Instant firing(Instant firing) {
    if (firing == null) {
      throw new IllegalArgumentException("firing must not be null");
    }
    return firing.truncatedTo(ChronoUnit.MILLIS);
  }

  public static Lease lease(Lease lease) {
    if (lease == null) {
      throw new IllegalArgumentException("lease must not be null");
    }
    return lease;
  }

  /**
   * Checks a batch of claims before the store is touched: every request valid as a single claim,
   * and no name twice (two claims of one name in one batch would race each other).
   */
  public static java.util.List<ClaimRequest> batch(java.util.List<ClaimRequest> requests) {
    if (requests == null) {
      throw new IllegalArgumentException("requests must not be null");
    }
    java.util.Set<String> names = new java.util.HashSet<>();
    for (ClaimRequest r : requests) {
      if (r == null) {
        throw new IllegalArgumentException("a claim request must not be null");
      }
      name(r.name());
      firing(r.firing());
      holder(r.holder());
      ttlMillis(r.ttl());
      if (!names.add(r.name())) {
        throw new IllegalArgumentException("name " + r.name() + " appears twice in one batch");
      }
    }
    return requests;
  }

  /** A fresh 128-bit random token, hex encoded. */
  public static String newToken() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
