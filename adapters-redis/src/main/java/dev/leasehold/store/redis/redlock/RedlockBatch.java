package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.store.redis.node.ClaimEntry;
import dev.leasehold.store.redis.node.ClaimScript;
import dev.leasehold.store.redis.node.ClaimUndo;
import dev.leasehold.store.redis.node.Grant;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.RedisNode;
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
 *       ClaimScript#BATCH} names each (all sent at once, in parallel across the nodes), each name
 *       with its own fresh token, the same on every node. Each entry is decided by the node exactly
 *       as a single claim is.
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

  RedlockBatch(RedlockClaim claim, List<RedisNode> nodes) {
    this.claim = claim;
    this.nodes = nodes;
    this.majority = RedisNode.majority(nodes);
  }

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
   * possible split vote, only when {@code mayRetry}). Round 2 and the validity check are {@link
   * RedlockClaim}'s, for all names granted by a majority at once.
   */
  private List<ClaimResult> attempt(List<ClaimRequest> batch, boolean mayRetry) {
    int size = batch.size();
    List<ClaimEntry> entries = batch.stream().map(claim::entry).toList();
    long start = System.nanoTime();
    long deadline = start + claim.timeout().toNanos();
    List<List<Grant>> byNode = Quorum.ask(nodes, n -> grantAllOn(n, entries), deadline);
    List<List<Grant>> grantsOf = new ArrayList<>(size);
    List<Integer> candidates = new ArrayList<>();
    List<Integer> undo = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      List<Grant> grants = new ArrayList<>(nodes.size());
      for (List<Grant> node : byNode) {
        grants.add(node == null ? null : node.get(i));
      }
      grantsOf.add(grants);
      (Quorum.count(grants, Grant::granted) >= majority ? candidates : undo).add(i);
    }
    // round 2 for the names granted by a majority, all at once
    List<RedlockClaim.Raise> raises = new ArrayList<>(candidates.size());
    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
    for (int i : candidates) {
      RedlockClaim.Raise raise = claim.raise(entries.get(i), grantsOf.get(i));
      raises.add(raise);
      calls.addAll(raise.calls());
    }
    List<Boolean> raised = Quorum.await(calls, deadline);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    ClaimResult[] out = new ClaimResult[size];
    int from = 0;
    for (int c = 0; c < candidates.size(); c++) {
      int i = candidates.get(c);
      int to = from + raises.get(c).calls().size();
      int level = raises.get(c).level(raised.subList(from, to));
      from = to;
      out[i] = claim.confirm(entries.get(i), grantsOf.get(i), level, elapsedMs);
      if (out[i].kind() != ClaimResult.Kind.WON) {
        undo.add(i);
      }
    }
    undoAll(entries, undo, grantsOf);
    for (int i : undo) {
      if (out[i] == null) {
        out[i] = claim.refusedOrRetry(entries.get(i).what(), grantsOf.get(i), mayRetry);
      }
    }
    return Arrays.asList(out);
  }

  /**
   * Round 1 on one node: the batch in scripts of up to {@value ClaimScript#BATCH} names, all sent
   * at once. One grant (or null: that script's answer was lost or unreadable) per entry. With
   * {@code wait-replicas}, the node's grants count only once its replicas acknowledged them; else
   * they are undone there and the node's whole answer counts as lost ({@link
   * ClaimUndo#unlessReplicated}).
   */
  private static CompletableFuture<List<Grant>> grantAllOn(RedisNode n, List<ClaimEntry> entries) {
    int size = entries.size();
    List<CompletableFuture<List<Grant>>> chunks = new ArrayList<>();
    for (int from = 0; from < size; from += ClaimScript.BATCH) {
      List<ClaimEntry> chunk = entries.subList(from, Math.min(size, from + ClaimScript.BATCH));
      chunks.add(
          ClaimScript.send(n, chunk)
              .exceptionally(
                  e -> {
                    log.debug(
                        "Redis {} did not answer a claim batch: {}", n.address(), e.toString());
                    return Collections.nCopies(chunk.size(), null);
                  }));
    }
    return CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              List<Grant> grants = new ArrayList<>(size);
              chunks.forEach(c -> grants.addAll(c.join()));
              return grants;
            })
        .thenCompose(grants -> ClaimUndo.unlessReplicated(n, "claim of a batch", entries, grants));
  }

  /**
   * Undoes the attempt for {@code names} on every node that granted them or whose answer was lost
   * ({@link ClaimUndo}: token-checked, watermark put back); a node that refused holds nothing of
   * it.
   */
  private void undoAll(List<ClaimEntry> entries, List<Integer> names, List<List<Grant>> grantsOf) {
    List<CompletableFuture<Object>> calls = new ArrayList<>();
    for (int i : names) {
      for (int n = 0; n < nodes.size(); n++) {
        Grant g = grantsOf.get(i).get(n);
        if (g == null || g.granted()) {
          calls.add(ClaimUndo.on(nodes.get(n), entries.get(i), g));
        }
      }
    }
    Quorum.await(calls, System.nanoTime() + claim.timeout().toNanos());
  }
}
