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

  /** A fresh 128-bit random token, hex encoded. */
  public static String newToken() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
