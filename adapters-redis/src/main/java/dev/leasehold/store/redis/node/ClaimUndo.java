package dev.leasehold.store.redis.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The undo of a claim (or acquisition) this client will not use, on one node: {@link
 * LuaScript#RELEASE} with the attempt's token, so it frees only a lease that this very attempt
 * holds, and for a claim it puts the watermark back:
 *
 * <ul>
 *   <li>where the claim was granted and its answer read: to the previous watermark the node
 *       returned (Redlock's undo of a split vote or of a grant without a majority; a grant that too
 *       few replicas acknowledged);
 *   <li>where the answer was lost (a timeout: the claim may still be in the connection and be
 *       applied later, a <em>ghost claim</em>): to one millisecond before the firing.
 * </ul>
 *
 * <p><b>Why the undo of a lost answer is safe.</b> It is sent on the connection that carried the
 * claim, right after the claim failed. Lettuce keeps that connection after a command timeout (the
 * timed-out command stays on it, its late answer is read and dropped, and it is never sent again),
 * and Redis runs one connection's commands in the order they were sent: so the undo reaches the
 * server after the claim, however late both arrive. It is sent as one {@code EVAL} of the script's
 * source (not {@code EVALSHA}, whose fallback after a NOSCRIPT answer would be a second command,
 * sent later, that a retry of the claim could overtake). The script acts only if the token still
 * holds the lease: then the claim was granted, nobody else was granted the name since (its lease
 * stood in the way), and nobody ran the firing (this client reported it not acquired). Before the
 * grant the watermark was before the firing, i.e. at most the firing minus 1 ms, so putting that
 * back never reopens a firing that was spent; it reopens exactly this firing, and earlier firings
 * stay spent as the claim made them. Where the token no longer holds the lease (the claim was
 * refused, never arrived, or its lease already ended) the undo changes nothing.
 *
 * <p>What it cannot close: when the connection itself breaks between the claim and the undo, the
 * undo is rejected or goes on a new connection and may overtake the claim; a claim applied after
 * that stays a ghost until its lease's TTL ends (never run, as before).
 */
public final class ClaimUndo {
  private ClaimUndo() {}

  /**
   * Undoes, on {@code node}, the attempt {@code entry}.
   *
   * @param grant the node's answer: a grant (its previous watermark is restored for a claim), a
   *     refusal, or null when the answer was lost
   */
  public static CompletableFuture<Object> on(RedisNode node, ClaimEntry entry, Grant grant) {
    String[] keys = entry.keys();
    Long firingMs = entry.firingMs();
    if (firingMs != null && grant != null && grant.granted()) {
      return node.evalInPlace(LuaScript.RELEASE, keys, entry.token(), grant.previousWatermark());
    }
    if (firingMs != null && grant == null) {
      return node.evalInPlace(LuaScript.RELEASE, keys, entry.token(), "" + (firingMs - 1));
    }
    return node.evalInPlace(LuaScript.RELEASE, keys, entry.token());
  }

  /**
   * With {@code wait-replicas}, the grants of {@code entries} (null: no answer) count only once
   * {@code node}'s replicas acknowledged them: one {@code WAIT} when anything was granted, and when
   * too few replicas acknowledge, every grant is undone ({@link #on}: token-checked, watermark put
   * back; nobody else can have been granted the name in between, and this client runs nothing) and
   * the call fails with the {@code WAIT}'s failure. Without {@code wait-replicas}, the grants as
   * they are.
   *
   * @param what the step, for the message
   */
  public static CompletableFuture<List<Grant>> unlessReplicated(
      RedisNode node, String what, List<ClaimEntry> entries, List<Grant> grants) {
    if (grants.stream().noneMatch(ClaimUndo::granted)) {
      return CompletableFuture.completedFuture(grants);
    }
    return node.replicated(what)
        .handle((ok, e) -> e)
        .thenCompose(
            e -> {
              if (e == null) {
                return CompletableFuture.completedFuture(grants);
              }
              List<CompletableFuture<Object>> undo = new ArrayList<>();
              for (int i = 0; i < grants.size(); i++) {
                if (granted(grants.get(i))) {
                  undo.add(on(node, entries.get(i), grants.get(i)));
                }
              }
              return CompletableFuture.allOf(undo.toArray(CompletableFuture[]::new))
                  .handle((v, ignored) -> null)
                  .thenCompose(v -> CompletableFuture.failedFuture(e));
            });
  }

  private static boolean granted(Grant g) {
    return g != null && g.granted();
  }
}
