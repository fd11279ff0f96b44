package dev.leasehold.store.redis;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redlock {@code claimAll}: the algorithm of {@link RedlockClaim}, run for a whole batch at once,
 * with per-name outcomes identical to a single claim's.
 *
 * <ol>
 *   <li>Round 1: every node gets the batch as {@link LuaScript#CLAIM} scripts of up to {@value
 *       RedisLeaseStore#BATCH} names each (all sent at once, in parallel across the nodes), each
 *       name with its own fresh token, the same on every node. Each entry is decided by the node
 *       exactly as a single claim is.
 *   <li>Per name, the quorum rule: fewer than {@code m} grants, and the name is undone on the nodes
 *       that granted it or whose answer was lost (token-checked, watermark put back); the names
 *       refused by live leases (a possible split vote) are tried again as a smaller batch after a
 *       random pause, as a single claim is; the others get their refusal (already run, or held)
 *       from the nodes' answers, or a failure when too few nodes answered.
 *   <li>Round 2 for the names with {@code m} grants: the granting nodes that returned less than the
 *       name's largest fence are raised to it ({@link LuaScript#RAISE_FENCE}, all sent at once).
 *   <li>A name holds when {@code m} nodes hold its token at its fence and {@code ttl - elapsed -
 *       drift > 0}, elapsed counted from the start of round 1 of its attempt; otherwise it is
 *       undone and reported as failed.
 * </ol>
 *
 * A name's outcome depends only on the nodes' answers for that name, as in {@link RedlockClaim}:
 * the scripts decide each entry on its own, so batching changes the number of round trips, not what
 * is decided.
 */
final class RedlockBatch {
  private static final Logger log = LoggerFactory.getLogger(RedlockBatch.class);

  private final RedlockClaim claim;
  private final List<RedisNode> nodes;
  private final int majority;
  private final LeaseKeys keys;

  RedlockBatch(RedlockClaim claim, List<RedisNode> nodes, LeaseKeys keys) {
    this.claim = claim;
    this.nodes = nodes;
    this.majority = nodes.size() / 2 + 1;
    this.keys = keys;
  }

  /** One attempt's requests, tokens and hints, by position in the attempt. */
  private record Attempt(
      List<ClaimRequest> requests, List<String[]> keys, String[] tokens, long[] hints) {}

  /** Claims every name of {@code requests} (already checked); answers in request order. */
  List<ClaimResult> claimAll(List<ClaimRequest> requests) {
    ClaimResult[] results = new ClaimResult[requests.size()];
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < requests.size(); i++) {
      pending.add(i);
    }
    long giveUp = System.nanoTime() + claim.timeout().toNanos();
    for (int attempt = 1; !pending.isEmpty(); attempt++) {
      boolean mayRetry = attempt < RedlockClaim.MAX_ATTEMPTS && System.nanoTime() < giveUp;
      List<Integer> retry = new ArrayList<>();
      List<ClaimRequest> batch = pending.stream().map(requests::get).toList();
      List<ClaimResult> answers = attempt(batch, mayRetry);
      for (int j = 0; j < pending.size(); j++) {
        if (answers.get(j) == null) {
          retry.add(pending.get(j));
        } else {
          results[pending.get(j)] = answers.get(j);
        }
      }
      pending = retry;
      if (!pending.isEmpty()) {
        try {
          RedlockClaim.pause(attempt);
        } catch (LeaseStoreException e) {
          // interrupted: the names still pending fail, the answers already decided stand
          pending.forEach(i -> results[i] = ClaimResult.failed(e));
          break;
        }
      }
    }
    return Arrays.asList(results);
  }

  /**
   * One attempt over {@code batch}: an answer per entry, or null for an entry to try again (a
   * possible split vote, only when {@code mayRetry}).
   */
  private List<ClaimResult> attempt(List<ClaimRequest> batch, boolean mayRetry) {
    int size = batch.size();
    List<String[]> k = new ArrayList<>(size);
    String[] tokens = new String[size];
    long[] hints = new long[size];
    for (int i = 0; i < size; i++) {
      String name = batch.get(i).name();
      k.add(keys.lease(name));
      tokens[i] = LeaseArguments.newToken();
      hints[i] = claim.hint(name);
    }
    Attempt a = new Attempt(batch, k, tokens, hints);
    long start = System.nanoTime();
    long deadline = start + claim.timeout().toNanos();
    List<List<Grant>> byNode = Quorum.ask(nodes, n -> grantAllOn(n, a), deadline);

    ClaimResult[] out = new ClaimResult[size];
    List<Integer> candidates = new ArrayList<>();
    List<Integer> undo = new ArrayList<>();
    List<List<Grant>> grantsOf = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      List<Grant> grants = new ArrayList<>(nodes.size());
      for (List<Grant> node : byNode) {
        grants.add(node == null ? null : node.get(i));
      }
      grantsOf.add(grants);
      if (Quorum.count(grants, Grant::granted) >= majority) {
        candidates.add(i);
      } else {
        undo.add(i);
      }
    }
    // round 2 for the names granted by a majority, all at once
    int[] level = raiseFences(a, candidates, grantsOf, deadline);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    for (int c = 0; c < candidates.size(); c++) {
      int i = candidates.get(c);
      ClaimRequest r = batch.get(i);
      long ttlMs = r.ttl().toMillis();
      long validity = RedlockClaim.validityMs(ttlMs, elapsedMs);
      List<Grant> grants = grantsOf.get(i);
      long fence = fence(grants);
      if (level[c] < majority || validity <= 0) {
        log.debug(
            "lease {} not confirmed: {} nodes at fence {}, validity {} ms",
            r.name(),
            level[c],
            fence,
            validity);
        undo.add(i);
        out[i] =
            ClaimResult.failed(
                new LeaseStoreException(
                    "Redlock: claim of "
                        + r.name()
                        + " could not be confirmed on a majority within its validity time;"
                        + " not acquired"));
        continue;
      }
      claim.granted(r.name(), fence);
      long serverNow =
          grants.stream()
              .filter(g -> g != null && g.granted())
              .mapToLong(Grant::serverMillis)
              .min()
              .orElseThrow();
      out[i] =
          ClaimResult.won(
              new Lease(
                  r.name(),
                  r.holder(),
                  tokens[i],
                  fence,
                  r.ttl(),
                  Instant.ofEpochMilli(serverNow).plus(r.ttl())));
    }
    undoAll(a, undo, grantsOf);
    for (int i : undo) {
      if (out[i] == null) {
        out[i] =
            claim.refusedOrRetry(
                LuaScript.CLAIM.name() + " of " + batch.get(i).name(), grantsOf.get(i), mayRetry);
      }
    }
    return Arrays.asList(out);
  }

  private static long fence(List<Grant> grants) {
    return grants.stream()
        .filter(g -> g != null && g.granted())
        .mapToLong(Grant::fence)
        .max()
        .orElseThrow();
  }

  /**
   * Round 1 on one node: the batch in scripts of up to {@value RedisLeaseStore#BATCH} names, all
   * sent at once. One grant (or null: that script's answer was lost or unreadable) per entry. With
   * {@code wait-replicas}, the node's grants count only once its replicas acknowledged them; else
   * they are undone there and the node's whole answer counts as lost.
   */
  private CompletableFuture<List<Grant>> grantAllOn(RedisNode n, Attempt a) {
    int size = a.requests().size();
    List<CompletableFuture<List<Grant>>> chunks = new ArrayList<>();
    for (int from = 0; from < size; from += RedisLeaseStore.BATCH) {
      chunks.add(chunkOn(n, a, from, Math.min(size, from + RedisLeaseStore.BATCH)));
    }
    CompletableFuture<List<Grant>> all =
        CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new))
            .thenApply(
                v -> {
                  List<Grant> grants = new ArrayList<>(size);
                  chunks.forEach(c -> grants.addAll(c.join()));
                  return grants;
                });
    if (n.waitReplicas() == 0) {
      return all;
    }
    return all.thenCompose(
        grants -> {
          if (grants.stream().noneMatch(g -> g != null && g.granted())) {
            return CompletableFuture.completedFuture(grants);
          }
          return n.replicated("claim of a batch")
              .handle((v, e) -> e)
              .thenCompose(
                  e -> {
                    if (e == null) {
                      return CompletableFuture.completedFuture(grants);
                    }
                    List<CompletableFuture<Object>> undo = new ArrayList<>();
                    for (int i = 0; i < size; i++) {
                      Grant g = grants.get(i);
                      if (g != null && g.granted()) {
                        undo.add(releaseOn(n, a, i, g));
                      }
                    }
                    return CompletableFuture.allOf(undo.toArray(CompletableFuture[]::new))
                        .handle((v, ignored) -> Collections.<Grant>nCopies(size, null));
                  });
        });
  }

  private static CompletableFuture<List<Grant>> chunkOn(RedisNode n, Attempt a, int from, int to) {
    int count = to - from;
    String[] k = new String[count * 2];
    String[] args = new String[count * 5];
    for (int j = 0; j < count; j++) {
      ClaimRequest r = a.requests().get(from + j);
      String[] pair = a.keys().get(from + j);
      k[2 * j] = pair[0];
      k[2 * j + 1] = pair[1];
      args[5 * j] = a.tokens()[from + j];
      args[5 * j + 1] = "" + r.ttl().toMillis();
      args[5 * j + 2] = "" + r.firing().toEpochMilli();
      args[5 * j + 3] = r.holder();
      args[5 * j + 4] = "" + a.hints()[from + j];
    }
    String where = "Redis " + n.address() + ": claim";
    return n.eval(LuaScript.CLAIM, k, args)
        .thenApply(
            reply -> {
              List<?> entries = Replies.array(where, reply, count);
              List<Grant> grants = new ArrayList<>(count);
              for (int j = 0; j < count; j++) {
                ClaimRequest r = a.requests().get(from + j);
                grants.add(
                    Grant.of(
                        where + " of " + r.name(),
                        entries.get(j),
                        r.firing().toEpochMilli(),
                        a.hints()[from + j]));
              }
              return grants;
            })
        .exceptionally(
            e -> {
              log.debug("Redis {} did not answer a claim batch: {}", n.address(), e.toString());
              return Collections.nCopies(count, null);
            });
  }

  /**
   * Raises, for each candidate, the granting nodes behind its largest fence; returns per candidate
   * how many nodes hold its token at that fence.
   */
  private int[] raiseFences(
      Attempt a, List<Integer> candidates, List<List<Grant>> grantsOf, long deadline) {
    int[] level = new int[candidates.size()];
    List<Integer> raisedFor = new ArrayList<>();
    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
    for (int c = 0; c < candidates.size(); c++) {
      int i = candidates.get(c);
      List<Grant> grants = grantsOf.get(i);
      long fence = fence(grants);
      for (int n = 0; n < nodes.size(); n++) {
        Grant g = grants.get(n);
        if (g == null || !g.granted()) {
          continue;
        }
        if (g.fence() == fence) {
          level[c]++;
        } else {
          RedisNode node = nodes.get(n);
          String name = a.requests().get(i).name();
          raisedFor.add(c);
          calls.add(
              node.eval(LuaScript.RAISE_FENCE, a.keys().get(i), a.tokens()[i], "" + fence)
                  .thenApply(
                      r ->
                          Replies.flag("Redis " + node.address() + ": raise-fence of " + name, r)));
        }
      }
    }
    List<Boolean> answers = Quorum.await(calls, deadline);
    for (int j = 0; j < answers.size(); j++) {
      if (Boolean.TRUE.equals(answers.get(j))) {
        level[raisedFor.get(j)]++;
      }
    }
    return level;
  }

  /**
   * Undoes the attempt for {@code names} on every node that granted them (watermark put back) or
   * whose answer was lost (token-checked release); a node that refused holds nothing of it.
   */
  private void undoAll(Attempt a, List<Integer> names, List<List<Grant>> grantsOf) {
    List<CompletableFuture<Object>> calls = new ArrayList<>();
    for (int i : names) {
      for (int n = 0; n < nodes.size(); n++) {
        Grant g = grantsOf.get(i).get(n);
        if (g == null || g.granted()) {
          calls.add(releaseOn(nodes.get(n), a, i, g));
        }
      }
    }
    Quorum.await(calls, System.nanoTime() + claim.timeout().toNanos());
  }

  private static CompletableFuture<Object> releaseOn(RedisNode n, Attempt a, int i, Grant g) {
    return RedlockClaim.undoOn(n, a.keys().get(i), a.tokens()[i], g, true);
  }
}
