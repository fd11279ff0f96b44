package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.store.redis.node.ClaimEntry;
import dev.leasehold.store.redis.node.ClaimScript;
import dev.leasehold.store.redis.node.ClaimUndo;
import dev.leasehold.store.redis.node.FenceHints;
import dev.leasehold.store.redis.node.Grant;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.Replies;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim (and acquire) of a {@link RedlockLeaseStore}: {@code m = N/2 + 1} of the N nodes must
 * grant the lease to one token within its validity time.
 *
 * <p><b>Claim</b> (and acquire), one attempt:
 *
 * <ol>
 *   <li>Round 1: the {@link LuaScript#CLAIM} script on every node in parallel with the same fresh
 *       token; each granting node raises its own fence to {@code max(fence + 1, hint)} and returns
 *       it together with its previous watermark. ({@code hint} is the largest fence this client has
 *       seen for the name; it only saves round 2 and is not needed for safety.)
 *   <li>With fewer than {@code m} grants: undo everywhere (release with the token, putting the
 *       watermark back where this attempt moved it), then retry after a random pause when the
 *       refusals came from live leases (a split vote between racing replicas), else give up.
 *   <li>Round 2: {@code F} = the largest fence returned; {@link LuaScript#RAISE_FENCE} lifts every
 *       granting node that returned less to {@code F}, checked against the token.
 *   <li>The lease holds, with fence {@code F}, when at least {@code m} nodes hold the token with
 *       counter {@code F} and {@code validity = ttl - elapsed - drift > 0}, drift = ttl/100 + 2 ms.
 *       Otherwise it is undone everywhere and reported as a failure.
 * </ol>
 *
 * <p><b>Why two winners never share or invert a fence.</b> Let W1 hold with fence F1 on a set R1 of
 * at least m nodes, each raised to F1 while W1's token was live there. A later winner W2 was
 * granted by m nodes, each only after W1's lease key there had expired or was released, i.e. after
 * W1's raise on that node. Two sets of m nodes out of N intersect; a node in the intersection had a
 * counter of at least F1 when it granted W2, so it returned at least F1 + 1, and W2's fence, the
 * maximum, is larger than F1. Counters never decrease (the scripts only raise them).
 *
 * <p><b>Why two majorities never both claim one firing.</b> W1's grant wrote the watermark on every
 * node of its majority. A later claim of the same firing needs m grants; the intersection node
 * refuses it ({@code fired}) — or, while W1 still holds, refuses it as {@code held}. An undo puts
 * the watermark back only where the undoing token still holds the lease, so no other claim was
 * granted there in between and nobody ran that firing.
 */
final class RedlockClaim {
  private static final Logger log = LoggerFactory.getLogger(RedlockClaim.class);
  static final int MAX_ATTEMPTS = 6;

  private final List<RedisNode> nodes;
  private final int majority;
  private final LeaseKeys keys;
  private final Duration timeout;
  private final FenceHints fenceHints = new FenceHints();
  private final RedlockRefusals refusals;

  RedlockClaim(List<RedisNode> nodes, LeaseKeys keys, Duration timeout) {
    this.refusals = new RedlockRefusals(nodes.size(), RedisNode.majority(nodes));
    this.nodes = nodes;
    this.majority = RedisNode.majority(nodes);
    this.keys = keys;
    this.timeout = timeout;
  }

  Duration timeout() {
    return timeout;
  }

  /** An entry of a new attempt to claim {@code r}: a fresh token, the least fence to ask for. */
  ClaimEntry entry(ClaimRequest r) {
    return ClaimEntry.claim(r, keys, LeaseArguments.newToken(), fenceHints.next(r.name()));
  }

  /**
   * What is left of a lease's validity, in ms, {@code elapsedMs} after its attempt started: the TTL
   * minus the elapsed time and the allowed clock drift ({@code ttl/100 + 2 ms}); not positive means
   * the lease cannot be counted on.
   */
  static long validityMs(long ttlMs, long elapsedMs) {
    return ttlMs - elapsedMs - (ttlMs / 100 + 2);
  }

  /**
   * Claims {@code name} for {@code firing} ({@link LuaScript#CLAIM}) or, with {@code firing} null,
   * acquires it ({@link LuaScript#ACQUIRE}). A refusal says why, from the nodes' own answers in
   * round 1: already run when so many nodes refused the firing as fired that no majority can grant
   * it, else held (with the holder most of the holding nodes name).
   */
  ClaimResult take(String name, String holder, Duration ttl, Instant firing) {
    long giveUp = System.nanoTime() + timeout.toNanos();
    for (int attempt = 1; ; attempt++) {
      String token = LeaseArguments.newToken();
      long hint = fenceHints.next(name);
      ClaimEntry entry = new ClaimEntry(name, keys.lease(name), token, holder, ttl, firing, hint);
      long start = System.nanoTime();
      long deadline = start + timeout.toNanos();
      List<Grant> grants = Quorum.ask(nodes, n -> grantOn(n, entry), deadline);
      if (Quorum.count(grants, Grant::granted) >= majority) {
        Raise raise = raise(entry, grants);
        int level = raise.level(Quorum.await(raise.calls(), deadline));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        ClaimResult result = confirm(entry, grants, level, elapsedMs);
        if (result.kind() == ClaimResult.Kind.WON) {
          return result;
        }
        undo(entry, grants);
        throw result.failure();
      }
      undo(entry, grants);
      boolean mayRetry = attempt < MAX_ATTEMPTS && System.nanoTime() < giveUp;
      ClaimResult refused = refusedOrRetry(entry.what(), grants, mayRetry);
      if (refused == null) {
        pause(attempt);
        continue;
      }
      if (refused.kind() == ClaimResult.Kind.FAILED) {
        throw refused.failure();
      }
      return refused;
    }
  }

  /**
   * Round 2 for one name that a majority granted: the raises ({@link LuaScript#RAISE_FENCE},
   * token-checked) of the granting nodes that returned less than the largest fence, sent at once.
   *
   * @param fence the largest fence returned
   * @param atFence how many nodes granted it at that fence already
   * @param calls the raises, in node order of the nodes behind
   */
  record Raise(long fence, int atFence, List<CompletableFuture<Boolean>> calls) {
    /** How many nodes hold the token at the fence, given the raises' answers (null: none). */
    int level(List<Boolean> answers) {
      return atFence + Quorum.count(answers, r -> r);
    }
  }

  Raise raise(ClaimEntry entry, List<Grant> grants) {
    long fence = fence(grants);
    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      Grant g = grants.get(i);
      if (g != null && g.granted() && g.fence() < fence) {
        RedisNode n = nodes.get(i);
        String where = "Redis " + n.address() + ": raise-fence of " + entry.name();
        try {
          calls.add(
              n.eval(LuaScript.RAISE_FENCE, entry.keys(), entry.token(), "" + fence)
                  .thenApply(r -> Replies.flag(where, r)));
        } catch (RuntimeException e) {
          calls.add(CompletableFuture.failedFuture(e));
        }
      }
    }
    return new Raise(fence, Quorum.count(grants, g -> g.granted() && g.fence() == fence), calls);
  }

  /**
   * The validity check of a name that a majority granted, after round 2: won, with the largest
   * fence, when {@code level} nodes (at least a majority) hold the token at that fence and {@code
   * validity = ttl - elapsed - drift > 0}; else a failure (not acquired: the caller undoes it).
   */
  ClaimResult confirm(ClaimEntry entry, List<Grant> grants, int level, long elapsedMs) {
    long fence = fence(grants);
    long validity = validityMs(entry.ttl().toMillis(), elapsedMs);
    if (level < majority || validity <= 0) {
      log.debug(
          "lease {} not confirmed: {} nodes at fence {}, validity {} ms",
          entry.name(),
          level,
          fence,
          validity);
      return ClaimResult.failed(
          new LeaseStoreException(
              "Redlock: "
                  + entry.what()
                  + " could not be confirmed on a majority within its validity time;"
                  + " not acquired"));
    }
    fenceHints.granted(entry.name(), fence);
    warnIfRestored(entry.name(), grants, fence);
    long serverNow =
        grants.stream()
            .filter(g -> g != null && g.granted())
            .mapToLong(Grant::serverMillis)
            .min()
            .orElseThrow();
    Instant expiresAt = Instant.ofEpochMilli(serverNow).plus(entry.ttl());
    return ClaimResult.won(
        new Lease(entry.name(), entry.holder(), entry.token(), fence, entry.ttl(), expiresAt));
  }

  private static long fence(List<Grant> grants) {
    return grants.stream()
        .filter(g -> g != null && g.granted())
        .mapToLong(Grant::fence)
        .max()
        .orElseThrow();
  }

  /**
   * Round 1 on one node: the script, its reply checked ({@link Grant#of}), and with {@code
   * wait-replicas} the node's replicas' acknowledgement of a grant; a grant they did not
   * acknowledge is undone on that node and counts as no answer ({@link
   * ClaimUndo#unlessReplicated}).
   */
  private static CompletableFuture<Grant> grantOn(RedisNode n, ClaimEntry entry) {
    List<ClaimEntry> one = List.of(entry);
    return ClaimScript.send(n, one)
        .thenCompose(grants -> ClaimUndo.unlessReplicated(n, entry.what(), one, grants))
        .thenApply(grants -> grants.get(0));
  }

  /** {@link RedlockRefusals#refusedOrRetry}. */
  ClaimResult refusedOrRetry(String what, List<Grant> grants, boolean mayRetry) {
    return refusals.refusedOrRetry(what, grants, mayRetry);
  }

  /** Logs when a node restored the fence of a won lease from its high-water hash. */
  static void warnIfRestored(String name, List<Grant> grants, long fence) {
    if (grants.stream().anyMatch(g -> g != null && g.granted() && g.restored())) {
      log.warn(
          dev.leasehold.core.lease.DeletedRecords.restored(
              name, "the meta hash on a node, restored from its high-water key", fence - 1, fence));
    }
  }

  /**
   * Releases the attempt's token on every node ({@link ClaimUndo}): where a claim was granted the
   * previous watermark is restored too, and where its answer was lost, the watermark just before
   * the firing.
   */
  private void undo(ClaimEntry entry, List<Grant> grants) {
    Quorum.ask(
        nodes,
        n -> ClaimUndo.on(n, entry, grants.get(nodes.indexOf(n))),
        System.nanoTime() + timeout.toNanos());
  }

  static void pause(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L << attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseStoreException("Redlock: interrupted while retrying", e);
    }
  }
}
