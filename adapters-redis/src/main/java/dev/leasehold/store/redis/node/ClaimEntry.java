package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.ClaimRequest;
import java.time.Duration;
import java.time.Instant;

/**
 * One name's part of a claim or acquisition attempt, as {@link ClaimScript} sends it and {@link
 * ClaimUndo} takes it back.
 *
 * @param keys the name's keys ({@link LeaseKeys#lease})
 * @param token the attempt's fresh token (on Redlock the same on every node)
 * @param firing the claimed firing, or null for an acquisition
 * @param minFence the least fence a grant may carry ({@link FenceHints#next})
 */
public record ClaimEntry(
    String name,
    String[] keys,
    String token,
    String holder,
    Duration ttl,
    Instant firing,
    long minFence) {

  public static ClaimEntry claim(ClaimRequest r, LeaseKeys keys, String token, long minFence) {
    return new ClaimEntry(
        r.name(), keys.lease(r.name()), token, r.holder(), r.ttl(), r.firing(), minFence);
  }

  public static ClaimEntry acquisition(
      String name, LeaseKeys keys, String token, String holder, Duration ttl, long minFence) {
    return new ClaimEntry(name, keys.lease(name), token, holder, ttl, null, minFence);
  }

  /** The firing in epoch ms, or null for an acquisition. */
  Long firingMs() {
    return firing == null ? null : firing.toEpochMilli();
  }

  /** {@code claim of <name>} or {@code acquire of <name>}, for messages. */
  public String what() {
    return (firing == null ? LuaScript.ACQUIRE : LuaScript.CLAIM).name() + " of " + name;
  }
}
