package dev.leasehold.store.redis;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.DeletedRecords;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.store.redis.node.ClaimEntry;
import dev.leasehold.store.redis.node.ClaimScript;
import dev.leasehold.store.redis.node.ClaimUndo;
import dev.leasehold.store.redis.node.FenceHints;
import dev.leasehold.store.redis.node.Grant;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.RedisNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim path of {@link RedisLeaseStore} on one node: sends the claim script ({@link
 * ClaimScript}), undoes what a failed or unreplicated call may have granted ({@link ClaimUndo}),
 * and turns the grants into answers, keeping this client's latest fence per name ({@link
 * FenceHints}).
 */
final class RedisClaims {
  private static final Logger log = LoggerFactory.getLogger(RedisLeaseStore.class);

  private final RedisNode node;
  private final LeaseKeys keys;
  private final FenceHints hints = new FenceHints();

  RedisClaims(RedisNode node, LeaseKeys keys) {
    this.node = node;
    this.keys = keys;
  }

  /** The fence hint for the next claim of {@code name} by this client. */
  long hint(String name) {
    return hints.next(name);
  }

  /** One claim script over {@code batch}; never completes exceptionally but per entry. */
  CompletableFuture<List<ClaimResult>> send(List<ClaimRequest> batch) {
    List<ClaimEntry> entries = new ArrayList<>(batch.size());
    for (ClaimRequest r : batch) {
      entries.add(ClaimEntry.claim(r, keys, LeaseArguments.newToken(), hints.next(r.name())));
    }
    String what = ClaimScript.what(entries);
    return ClaimScript.send(node, entries)
        .thenCompose(grants -> ClaimUndo.unlessReplicated(node, what, entries, grants))
        .handle(
            (grants, e) -> {
              if (e == null) {
                return results(entries, grants);
              }
              // the claim may still be applied by the server (its answer was lost, e.g. a timeout
              // while the network held the bytes): each entry's undo follows it on the same
              // connection (ClaimUndo), sent before the failure is reported, so that a retry comes
              // after it; nobody waits for its answer
              entries.forEach(entry -> ClaimUndo.on(node, entry, null));
              return failAll(batch, node.failure(what, e));
            });
  }

  private List<ClaimResult> results(List<ClaimEntry> entries, List<Grant> grants) {
    List<ClaimResult> results = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      ClaimEntry e = entries.get(i);
      Grant g = grants.get(i);
      if (g.granted()) {
        results.add(ClaimResult.won(lease(e, g)));
      } else {
        log.debug("claim of {} refused: {}", e.name(), g.refusal());
        results.add(g.refusalResult());
      }
    }
    return results;
  }

  /** The lease {@code g} granted to {@code e}, recorded as this client's latest fence. */
  Lease lease(ClaimEntry e, Grant g) {
    hints.granted(e.name(), g.fence());
    warnIfRestored(e.name(), g);
    Instant expiresAt = Instant.ofEpochMilli(g.serverMillis()).plus(e.ttl());
    return new Lease(e.name(), e.holder(), e.token(), g.fence(), e.ttl(), expiresAt);
  }

  private void warnIfRestored(String name, Grant g) {
    if (g.restored()) {
      log.warn(
          DeletedRecords.restored(
              name,
              keys.meta(name)
                  + " was missing; fence and watermark taken from "
                  + keys.highWater(name),
              g.fence() - 1,
              g.fence()));
    }
  }

  private static List<ClaimResult> failAll(List<ClaimRequest> batch, LeaseStoreException e) {
    List<ClaimResult> results = new ArrayList<>(batch.size());
    batch.forEach(r -> results.add(ClaimResult.failed(e)));
    return results;
  }
}
