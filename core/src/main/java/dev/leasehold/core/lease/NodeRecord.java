package dev.leasehold.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

/**
 * What one running daemon says about itself in the store ({@link LeaseStore#publishNode}): who it
 * is, what it runs and which leases it holds. Published again on a timer; a record that is not
 * refreshed expires on its own.
 *
 * <p>A record is <b>live</b> until {@code expiresAt} ({@code lastSeen} plus the TTL it was
 * published with), then <b>stale</b>: the store keeps it for {@link #STALE_FACTOR} more TTLs, so a
 * replica that stopped refreshing (crashed, killed, cut off) can be shown as such, and then drops
 * it. Liveness is judged on the reader's clock against the publisher's {@code lastSeen}: it is for
 * display and drift detection only, never for a claim.
 *
 * @param nodeId the daemon's node id (as a lease holder)
 * @param version the Leasehold version it runs
 * @param startedAt when it started
 * @param lastSeen when it published this record (its clock), to the millisecond
 * @param jobDigest a stable digest of its normalized job definitions; equal digests mean equal jobs
 * @param leases the leases it holds now, sorted
 * @param expiresAt when the record stops being live; {@code null} on a record not yet published
 *     (the store sets it)
 */
public record NodeRecord(
    String nodeId,
    String version,
    Instant startedAt,
    Instant lastSeen,
    String jobDigest,
    List<String> leases,
    Instant expiresAt) {

  /** A record outlives its TTL by this many TTLs, as stale, before the store drops it. */
  public static final int STALE_FACTOR = 3;

  public NodeRecord {
    LeaseArguments.holder(nodeId);
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(jobDigest, "jobDigest");
    startedAt = Objects.requireNonNull(startedAt, "startedAt").truncatedTo(ChronoUnit.MILLIS);
    lastSeen = Objects.requireNonNull(lastSeen, "lastSeen").truncatedTo(ChronoUnit.MILLIS);
    leases = leases == null ? List.of() : List.copyOf(leases.stream().sorted().toList());
    expiresAt = expiresAt == null ? null : expiresAt.truncatedTo(ChronoUnit.MILLIS);
  }

  /** A record to publish (no expiry yet). */
  public NodeRecord(
      String nodeId,
      String version,
      Instant startedAt,
      Instant lastSeen,
      String jobDigest,
      List<String> leases) {
    this(nodeId, version, startedAt, lastSeen, jobDigest, leases, null);
  }

  /** This record under another id (a namespace's stored id, and back). */
  public NodeRecord withNodeId(String id) {
    return new NodeRecord(id, version, startedAt, lastSeen, jobDigest, leases, expiresAt);
  }

  /** This record as published with {@code ttl}: live until {@code lastSeen + ttl}. */
  public NodeRecord publishedFor(Duration ttl) {
    LeaseArguments.ttlMillis(ttl);
    return new NodeRecord(
        nodeId, version, startedAt, lastSeen, jobDigest, leases, lastSeen.plus(ttl));
  }

  /** How long a store keeps a record published with {@code ttl}: live, then stale. */
  public static Duration keepFor(Duration ttl) {
    return ttl.multipliedBy(1 + STALE_FACTOR);
  }

  /** When a store drops this (published) record: {@link #STALE_FACTOR} TTLs after it expires. */
  public Instant keptUntil() {
    Duration ttl = Duration.between(lastSeen, expiresAt);
    return expiresAt.plus(ttl.multipliedBy(STALE_FACTOR));
  }

  /** Whether the record is live at {@code now}. */
  public boolean liveAt(Instant now) {
    return expiresAt != null && now.isBefore(expiresAt);
  }
}
