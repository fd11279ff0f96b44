package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.node.ClaimScript;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.NodeState;
import dev.leasehold.store.redis.node.RedisConnector;
import dev.leasehold.store.redis.node.RedisNode;
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
 * does not need synchronized clocks. See {@code docs/stores/redis.md}. Pauses and forgetting are
 * {@link RedlockLeaseRecords}, node records {@link
 * dev.leasehold.store.redis.node.RedisNodeRecords}.
 */
public final class RedlockLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(RedlockLeaseStore.class);

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
    return Quorum.tooFew(what, answered, nodes);
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

  /**
   * The least {@code TIME} of the masters that answer, as a claim's expiry is on the least of its
   * granting masters' clocks; fails when none answers.
   */
  @Override
  public Optional<Instant> storeTime() {
    List<CompletableFuture<Instant>> asked = nodes.stream().map(RedisNode::time).toList();
    Instant least = null;
    LeaseStoreException failure = null;
    for (int i = 0; i < nodes.size(); i++) {
      try {
        Instant t = nodes.get(i).await(asked.get(i), "TIME");
        least = least == null || t.isBefore(least) ? t : least;
      } catch (LeaseStoreException e) {
        failure = e;
      }
    }
    if (least == null) {
      throw failure;
    }
    return Optional.of(least);
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
