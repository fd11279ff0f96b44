package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.node.ClaimScript;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.NodeState;
import dev.leasehold.store.redis.node.RedisConnector;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.RedisNodes;
import dev.leasehold.store.redis.node.RedisOptions;
import dev.leasehold.store.redis.node.RedisUris;
import dev.leasehold.store.redis.node.Replies;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on 3 or 5 independent Redis masters (Redlock): a lease is held when a majority
 * {@code m = N/2 + 1} of the nodes granted it with one token, within its validity time.
 *
 * <p>Claims and acquisitions run the two-round algorithm of {@link RedlockClaim}, which also
 * explains why fences stay monotonic and why one firing is never claimed twice; a batch ({@link
 * #claimAll}) runs the same algorithm for all its names at once ({@link RedlockBatch}).
 *
 * <p><b>Assumptions.</b> The intersection argument needs each node to keep its keys: a node that
 * restarts empty may forget W1's lease, watermark and counter. That is safe while the restarted
 * nodes are fewer than the nodes of W1's majority that kept their data can spare (W1 granted by all
 * N survives one loss out of 3 or two out of 5), and in general only with AOF persistence ({@code
 * appendfsync always}) or a restart delayed beyond the longest TTL and misfire grace. The validity
 * check assumes the clocks' rates drift by less than 1% (expiry is per node, by {@code PX}); it
 * does not need synchronized clocks. See {@code docs/stores/redis.md}.
 */
public final class RedlockLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(RedlockLeaseStore.class);

  private static final long FORGET_REST_MS = 1000;

  private final RedisConnector connector;
  private final List<RedisNode> nodes;
  private final int majority;
  private final LeaseKeys keys;
  private final Duration timeout;
  private final RedlockClaim claims;
  private final RedlockBatch batches;

  private RedlockLeaseStore(RedisConnector connector, List<RedisNode> nodes, LeaseKeys keys) {
    this.connector = connector;
    this.nodes = List.copyOf(nodes);
    this.majority = RedisNode.majority(nodes);
    this.keys = keys;
    this.timeout = nodes.get(0).timeout();
    this.claims = new RedlockClaim(this.nodes, keys, timeout);
    this.batches = new RedlockBatch(claims, this.nodes);
  }

  /** A store on {@code settings.urls()} (3 or 5 masters), with its own connections. */
  public static RedlockLeaseStore open(StoreSettings settings) {
    String problem = RedisUris.quorumProblem(settings.urls());
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    LeaseKeys keys = LeaseKeys.of(settings.keyPrefix());
    String options = RedisOptions.problem(settings);
    if (options != null) {
      throw new IllegalArgumentException(options);
    }
    RedisConnector connector =
        new RedisConnector(settings.commandTimeout(), RedisOptions.waitReplicas(settings));
    List<RedisNode> nodes =
        settings.urls().stream().map(u -> connector.node(RedisUris.parse(u, settings))).toList();
    return new RedlockLeaseStore(connector, nodes, keys);
  }

  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    return tryClaim(name, firing, holder, ttl).leaseIfWon();
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.firing(firing);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    return claims.take(name, holder, ttl, firing);
  }

  /**
   * The batch as {@link RedlockBatch}: one claim script per node for up to {@value
   * ClaimScript#BATCH} names, the quorum rule applied per name.
   */
  @Override
  public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
    LeaseArguments.batch(requests);
    return requests.isEmpty() ? List.of() : batches.claimAll(requests);
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    return claims.take(name, holder, ttl, null).leaseIfWon();
  }

  /**
   * True when a majority extended the lease within its new validity time; false when a majority
   * refused (the lease expired or was taken) or the renewal took too long; a {@link
   * LeaseStoreException} when too few nodes answered to tell.
   */
  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    long start = System.nanoTime();
    List<Boolean> answers =
        Quorum.ask(nodes, n -> replicatedRenewal(n, k, lease, ttlMs), start + timeout.toNanos());
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    Boolean verdict = verdict(answers, "renew", lease.name());
    if (Boolean.TRUE.equals(verdict) && RedlockClaim.validityMs(ttlMs, elapsedMs) > 0) {
      return true;
    }
    log.warn("renewal of {} refused by the majority of {} nodes", lease, nodes.size());
    return false;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    List<Boolean> answers =
        Quorum.ask(
            nodes,
            n ->
                n.eval(LuaScript.RELEASE, k, lease.token())
                    .thenApply(
                        r ->
                            Replies.flag(
                                "Redis " + n.address() + ": release of " + lease.name(), r)),
            System.nanoTime() + timeout.toNanos());
    return verdict(answers, "release", lease.name());
  }

  /**
   * One node's renewal; with {@code wait-replicas} it counts only once that node's replicas
   * acknowledged it (else no answer from that node).
   */
  private static CompletableFuture<Boolean> replicatedRenewal(
      RedisNode n, String[] k, Lease lease, long ttlMs) {
    String where = "Redis " + n.address() + ": renewal of " + lease.name();
    CompletableFuture<Boolean> renewed =
        n.eval(LuaScript.RENEW, k, lease.token(), "" + ttlMs)
            .thenApply(r -> Replies.flag(where, r));
    return renewed.thenCompose(
        yes -> yes ? n.replicated("renewal of " + lease.name()).thenApply(v -> true) : renewed);
  }

  /** True with m "yes", false with more "no" than a majority allows, else too few answers. */
  private Boolean verdict(List<Boolean> answers, String what, String name) {
    int yes = Quorum.count(answers, a -> a);
    int no = Quorum.count(answers, a -> !a);
    if (yes >= majority) {
      return true;
    }
    if (no > nodes.size() - majority) {
      return false;
    }
    throw tooFew(what + " of " + name, yes + no);
  }

  private LeaseStoreException tooFew(String what, int answered) {
    return new LeaseStoreException(
        "Redlock: "
            + what
            + ": only "
            + answered
            + " of "
            + nodes.size()
            + " nodes answered, "
            + majority
            + " needed");
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    List<Optional<NodeState>> answers =
        Quorum.ask(
            nodes,
            n ->
                n.eval(LuaScript.INSPECT, keys.lease(name))
                    .thenApply(
                        r ->
                            Optional.ofNullable(
                                NodeState.of("Redis " + n.address() + ": inspect of " + name, r))),
            System.nanoTime() + timeout.toNanos());
    int answered = Quorum.count(answers, a -> true);
    if (answered < majority) {
      throw tooFew("inspect of " + name, answered);
    }
    List<NodeState> states =
        answers.stream().filter(Objects::nonNull).flatMap(Optional::stream).toList();
    // held needs a majority that holds it, free a majority that does not: a node that did not
    // answer may still hold it, so a split among the answers decides nothing (a renewal that a
    // majority grants a moment later would otherwise revive a lease this call called free)
    long holding = states.stream().filter(NodeState::held).count();
    if (holding < majority && answered - holding < majority) {
      throw new LeaseStoreException(
          "Redlock: inspect of "
              + name
              + ": undecided, "
              + holding
              + " of "
              + nodes.size()
              + " nodes hold it, "
              + (answered - holding)
              + " do not, "
              + (nodes.size() - answered)
              + " did not answer");
    }
    return NodeState.merge(name, states, majority);
  }

  @Override
  public boolean supportsNodes() {
    return true;
  }

  /** One {@code SET ... PX} per Redis node ({@link RedisNodes}). */
  @Override
  public void publishNode(dev.leasehold.core.lease.NodeRecord record, Duration ttl) {
    RedisNodes.publishAll(nodes, keys, record, ttl);
  }

  @Override
  public List<dev.leasehold.core.lease.NodeRecord> nodes() {
    return RedisNodes.readAll(nodes, keys);
  }

  @Override
  public List<LeaseState> list() {
    TreeSet<String> names = new TreeSet<>();
    int answered = 0;
    for (RedisNode node : nodes) {
      try {
        node.scan(keys.metaPattern()).stream()
            .map(key -> keys.nameOf(key, false))
            .filter(Objects::nonNull)
            .forEach(names::add);
        answered++;
      } catch (LeaseStoreException e) {
        log.debug("list: {}", e.getMessage());
      }
    }
    if (answered < majority) {
      throw tooFew("list", answered);
    }
    List<LeaseState> out = new ArrayList<>();
    for (String name : names) {
      inspect(name).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public boolean supportsPause() {
    return true;
  }

  /**
   * The pause script on every node; done when a majority kept it. A paused node never grants a
   * claim, so at most {@code N - m < m} nodes can grant one and no claim of the name wins. A claim
   * that a majority answers {@code paused} records the firing (each node answers so once per
   * firing, so at most one claimant gets a majority of those answers).
   */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    String[] k = keys.lease(name);
    List<Long> since =
        Quorum.ask(
            nodes,
            n ->
                n.eval(
                        LuaScript.PAUSE,
                        k,
                        by,
                        reason == null ? "" : reason,
                        stopRunning ? "1" : "0")
                    .thenCompose(
                        r -> {
                          String where = "Redis " + n.address() + ": pause of " + name;
                          long at = Replies.integer(where, r, Replies.array(where, r, 2).get(0));
                          return n.replicated("pause of " + name).thenApply(v -> at);
                        }),
            System.nanoTime() + timeout.toNanos());
    int kept = Quorum.count(since, s -> true);
    if (kept < majority) {
      throw tooFew("pause of " + name, kept);
    }
    long first = since.stream().filter(Objects::nonNull).mapToLong(Long::longValue).min().orElse(0);
    return new Pause(Instant.ofEpochMilli(first), by, reason, stopRunning);
  }

  /** The resume script on every node; true when a node was paused, once a majority answered. */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    String[] k = keys.lease(name);
    List<Boolean> answers =
        Quorum.ask(
            nodes,
            n ->
                n.eval(LuaScript.RESUME, k, catchUp ? "1" : "0")
                    .thenApply(
                        r -> Replies.flag("Redis " + n.address() + ": resume of " + name, r)),
            System.nanoTime() + timeout.toNanos());
    int answered = Quorum.count(answers, a -> true);
    if (answered < majority) {
      throw tooFew("resume of " + name, answered);
    }
    return Quorum.count(answers, a -> a) > 0;
  }

  @Override
  public boolean supportsForget() {
    return true;
  }

  /**
   * The forget script on every node, each deciding on its own lease key; true once a majority
   * deleted the record. A live lease holds its key on a majority, so it is never forgotten; a node
   * that lacks the key may drop its meta hash, and its high-water key keeps the fence rising.
   */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    String[] k = keys.lease(name);
    String scratch = dev.leasehold.core.store.StoreSelfCheck.isScratch(name) ? "1" : "0";
    List<Boolean> answers =
        Quorum.ask(
            nodes,
            n ->
                n.eval(LuaScript.FORGET, k, scratch)
                    .thenApply(
                        r -> Replies.flag("Redis " + n.address() + ": forget of " + name, r)),
            System.nanoTime() + timeout.toNanos());
    int answered = Quorum.count(answers, a -> true);
    if (answered < majority) {
      throw tooFew("forget of " + name, answered);
    }
    if (Quorum.count(answers, a -> a) < majority) {
      return false;
    }
    forgetOnTheRest(name, k, scratch, answers);
    return true;
  }

  /**
   * A majority forgot the record, so no lease lives; a node that refused still has its copy of the
   * lease key, which expires on that node a few milliseconds after the others (each node runs its
   * own PX). Asks those nodes again for up to {@value #FORGET_REST_MS} ms so that the record is
   * gone everywhere, not only from a majority; a node that still refuses then keeps its copy
   * (inspect shows it until the next forget), which is harmless.
   */
  private void forgetOnTheRest(String name, String[] k, String scratch, List<Boolean> answers) {
    List<RedisNode> rest = new java.util.ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (Boolean.FALSE.equals(answers.get(i))) {
        rest.add(nodes.get(i));
      }
    }
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FORGET_REST_MS);
    while (!rest.isEmpty() && System.nanoTime() < end) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      List<Boolean> again =
          Quorum.ask(
              rest,
              n ->
                  n.eval(LuaScript.FORGET, k, scratch)
                      .thenApply(
                          r -> Replies.flag("Redis " + n.address() + ": forget of " + name, r)),
              System.nanoTime() + timeout.toNanos());
      List<RedisNode> still = new java.util.ArrayList<>();
      for (int i = 0; i < rest.size(); i++) {
        if (!Boolean.TRUE.equals(again.get(i))) {
          still.add(rest.get(i));
        }
      }
      rest = still;
    }
  }

  public List<RedisNode> redisNodes() {
    return nodes;
  }

  public LeaseKeys keys() {
    return keys;
  }

  @Override
  public void close() {
    connector.close();
  }

  @Override
  public String toString() {
    return "RedlockLeaseStore["
        + nodes.stream().map(RedisNode::address).toList()
        + ", prefix="
        + keys.prefix()
        + "]";
  }
}
