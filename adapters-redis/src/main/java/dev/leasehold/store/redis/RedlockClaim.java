package dev.leasehold.store.redis;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
  private final Duration timeout;
  private final FenceHints fenceHints = new FenceHints();

  RedlockClaim(List<RedisNode> nodes, Duration timeout) {
    this.nodes = nodes;
    this.majority = nodes.size() / 2 + 1;
    this.timeout = timeout;
  }

  Duration timeout() {
    return timeout;
  }

  /** The least fence a node may grant for {@code name}: one above the largest this client saw. */
  long hint(String name) {
    return fenceHints.next(name);
  }

  /** Records a fence this client was granted for {@code name}. */
  void granted(String name, long fence) {
    fenceHints.granted(name, fence);
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
   * Claims ({@link LuaScript#CLAIM}, {@code firing} in epoch ms) or acquires ({@link
   * LuaScript#ACQUIRE}, {@code firing} null) the lease {@code name} whose keys are {@code k}. A
   * refusal says why, from the nodes' own answers in round 1: already run when so many nodes
   * refused the firing as fired that no majority can grant it, else held (with the holder most of
   * the holding nodes name).
   */
  ClaimResult take(
      LuaScript script, String[] k, String name, String holder, Duration ttl, String firing) {
    String ttlMs = "" + ttl.toMillis();
    long giveUp = System.nanoTime() + timeout.toNanos();
    for (int attempt = 1; ; attempt++) {
      String token = LeaseArguments.newToken();
      long hint = hint(name);
      String[] args =
          firing == null
              ? new String[] {token, ttlMs, holder, "" + hint}
              : new String[] {token, ttlMs, firing, holder, "" + hint};
      long start = System.nanoTime();
      List<Grant> grants =
          Quorum.ask(
              nodes,
              n -> grantOn(n, script, k, name, args, firing, hint),
              start + timeout.toNanos());
      int granted = Quorum.count(grants, Grant::granted);
      if (granted >= majority) {
        Optional<Lease> lease = hold(k, name, holder, ttl, token, grants, start);
        if (lease.isPresent()) {
          return ClaimResult.won(lease.get());
        }
        undo(k, token, grants, firing != null);
        throw new LeaseStoreException(
            "Redlock: "
                + script.name()
                + " of "
                + name
                + " could not be confirmed on a majority"
                + " within its validity time; not acquired");
      }
      undo(k, token, grants, firing != null);
      boolean mayRetry = attempt < MAX_ATTEMPTS && System.nanoTime() < giveUp;
      ClaimResult refused = refusedOrRetry(script.name() + " of " + name, grants, mayRetry);
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
   * The answer to an attempt that fewer than a majority granted (already undone), from the nodes'
   * own answers: null to try again (refusals from live leases, possibly a split vote between racing
   * replicas, when {@code mayRetry}); a failure when too few nodes answered to tell; else already
   * run when so many nodes refused the firing as fired that no majority can grant it, or held.
   *
   * @param what step and name, for messages
   */
  ClaimResult refusedOrRetry(String what, List<Grant> grants, boolean mayRetry) {
    // a live lease refuses, whatever the watermark says: it may be a rival's attempt that is
    // about to be undone (a split vote), so only refusals without a live lease are final
    int granted = Quorum.count(grants, Grant::granted);
    int held = Quorum.count(grants, g -> !g.granted() && g.live());
    int fired = Quorum.count(grants, g -> Grant.FIRED.equals(g.refusal()) && !g.live());
    int unknown = (int) grants.stream().filter(Objects::isNull).count();
    boolean splitVote = held > 0 && fired <= nodes.size() - majority;
    if (splitVote && mayRetry) {
      return null;
    }
    if (granted + unknown >= majority) {
      return ClaimResult.failed(
          new LeaseStoreException(
              "Redlock: "
                  + what
                  + ": only "
                  + (nodes.size() - unknown)
                  + " of "
                  + nodes.size()
                  + " nodes answered, "
                  + majority
                  + " needed; not acquired"));
    }
    log.debug(
        "{} refused: {} held, {} fired, {} granted of {}",
        what,
        held,
        fired,
        granted,
        nodes.size());
    int spent = Quorum.count(grants, g -> Grant.FIRED.equals(g.refusal()));
    return refusal(grants, spent > nodes.size() - majority);
  }

  /**
   * Round 1 on one node: the script, its reply checked ({@link Grant#of}), and with {@code
   * wait-replicas} the node's replicas' acknowledgement of a grant; a grant they did not
   * acknowledge is undone on that node and counts as no answer.
   */
  private CompletableFuture<Grant> grantOn(
      RedisNode n,
      LuaScript script,
      String[] k,
      String name,
      String[] args,
      String firing,
      long hint) {
    String where = "Redis " + n.address() + ": " + script.name() + " of " + name;
    Long firingMs = firing == null ? null : Long.parseLong(firing);
    CompletableFuture<Grant> grant =
        n.eval(script, k, args)
            .thenApply(
                r ->
                    Grant.of(
                        where,
                        firing == null ? r : Replies.array(where, r, 1).get(0),
                        firingMs,
                        hint));
    if (n.waitReplicas() == 0) {
      return grant;
    }
    return grant.thenCompose(
        g ->
            !g.granted()
                ? CompletableFuture.completedFuture(g)
                : n.replicated(script.name() + " of " + name)
                    .handle((v, e) -> e)
                    .thenCompose(
                        e ->
                            e == null
                                ? CompletableFuture.completedFuture(g)
                                : undoOn(n, k, args[0], g, firing != null)
                                    .handle((v, ignored) -> (Grant) null)
                                    .thenCompose(v -> CompletableFuture.failedFuture(e))));
  }

  private static ClaimResult refusal(List<Grant> grants, boolean alreadyRun) {
    Instant watermark =
        grants.stream()
            .filter(g -> g != null && g.watermark() != null && !g.watermark().isEmpty())
            .map(g -> Instant.ofEpochMilli(Long.parseLong(g.watermark())))
            .max(Comparator.naturalOrder())
            .orElse(null);
    if (alreadyRun) {
      return ClaimResult.alreadyRun(watermark);
    }
    String holder =
        grants.stream()
            .filter(g -> g != null && g.holder() != null && !g.holder().isEmpty())
            .collect(Collectors.groupingBy(Grant::holder, Collectors.counting()))
            .entrySet()
            .stream()
            .max(Map.Entry.comparingByValue())
            .map(Map.Entry::getKey)
            .orElse(null);
    return ClaimResult.held(holder, watermark);
  }

  /** Round 2 and the validity check; empty when the lease cannot be confirmed. */
  private Optional<Lease> hold(
      String[] k,
      String name,
      String holder,
      Duration ttl,
      String token,
      List<Grant> grants,
      long start) {
    List<Grant> won = grants.stream().filter(g -> g != null && g.granted()).toList();
    long fence = won.stream().mapToLong(Grant::fence).max().orElseThrow();
    int level = Quorum.count(grants, g -> g.granted() && g.fence() == fence);
    List<RedisNode> behind = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      Grant g = grants.get(i);
      if (g != null && g.granted() && g.fence() < fence) {
        behind.add(nodes.get(i));
      }
    }
    if (!behind.isEmpty()) {
      List<Boolean> raised =
          Quorum.ask(
              behind,
              n ->
                  n.eval(LuaScript.RAISE_FENCE, k, token, "" + fence)
                      .thenApply(
                          r ->
                              Replies.flag("Redis " + n.address() + ": raise-fence of " + name, r)),
              start + timeout.toNanos());
      level += Quorum.count(raised, r -> r);
    }
    long ttlMs = ttl.toMillis();
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long validity = validityMs(ttlMs, elapsedMs);
    if (level < majority || validity <= 0) {
      log.debug(
          "lease {} not confirmed: {} nodes at fence {}, validity {} ms",
          name,
          level,
          fence,
          validity);
      return Optional.empty();
    }
    granted(name, fence);
    long serverNow = won.stream().mapToLong(Grant::serverMillis).min().orElseThrow();
    return Optional.of(
        new Lease(name, holder, token, fence, ttl, Instant.ofEpochMilli(serverNow).plus(ttl)));
  }

  /**
   * Releases the attempt's token on every node, including those whose answer was lost. Where a
   * claim was granted, the previous watermark is restored too (see {@link LuaScript#RELEASE}).
   */
  private void undo(String[] k, String token, List<Grant> grants, boolean claim) {
    Quorum.ask(
        nodes,
        n -> {
          Grant g = grants.get(nodes.indexOf(n));
          return undoOn(n, k, token, g, claim);
        },
        System.nanoTime() + timeout.toNanos());
  }

  /**
   * Releases the attempt's token on {@code n}, its watermark restored where a claim was granted.
   */
  static CompletableFuture<Object> undoOn(
      RedisNode n, String[] k, String token, Grant g, boolean claim) {
    return claim && g != null && g.granted()
        ? n.eval(LuaScript.RELEASE, k, token, g.previousWatermark())
        : n.eval(LuaScript.RELEASE, k, token);
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
