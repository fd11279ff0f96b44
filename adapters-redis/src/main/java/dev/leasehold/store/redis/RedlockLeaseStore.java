package dev.leasehold.store.redis;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on 3 or 5 independent Redis masters (Redlock): a lease is held when a majority
 * {@code m = N/2 + 1} of the nodes granted it with one token, within its validity time.
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
  private static final int MAX_ATTEMPTS = 6;

  private final RedisConnector connector;
  private final List<RedisNode> nodes;
  private final int majority;
  private final LeaseKeys keys;
  private final Duration timeout;
  private final Map<String, Long> fenceHint = new ConcurrentHashMap<>();

  private RedlockLeaseStore(RedisConnector connector, List<RedisNode> nodes, LeaseKeys keys) {
    this.connector = connector;
    this.nodes = List.copyOf(nodes);
    this.majority = nodes.size() / 2 + 1;
    this.keys = keys;
    this.timeout = nodes.get(0).timeout();
  }

  /** A store on {@code settings.urls()} (3 or 5 masters), with its own connections. */
  public static RedlockLeaseStore open(StoreSettings settings) {
    String problem = RedisUris.quorumProblem(settings.urls());
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    LeaseKeys keys = LeaseKeys.of(settings.keyPrefix());
    RedisConnector connector = new RedisConnector(settings.commandTimeout());
    List<RedisNode> nodes =
        settings.urls().stream().map(u -> connector.node(RedisUris.parse(u, settings))).toList();
    return new RedlockLeaseStore(connector, nodes, keys);
  }

  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    String fire = "" + LeaseArguments.firing(firing).toEpochMilli();
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    return take(LuaScript.CLAIM, name, holder, ttl, fire);
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    return take(LuaScript.ACQUIRE, name, holder, ttl, null);
  }

  private Optional<Lease> take(
      LuaScript script, String name, String holder, Duration ttl, String firing) {
    String[] k = keys.lease(name);
    String ttlMs = "" + ttl.toMillis();
    long giveUp = System.nanoTime() + timeout.toNanos();
    for (int attempt = 1; ; attempt++) {
      String token = LeaseArguments.newToken();
      String hint = "" + (fenceHint.getOrDefault(name, 0L) + 1);
      String[] args =
          firing == null
              ? new String[] {token, ttlMs, holder, hint}
              : new String[] {token, ttlMs, firing, holder, hint};
      long start = System.nanoTime();
      List<Grant> grants =
          Quorum.ask(
              nodes,
              n -> n.<List<Object>>eval(script, k, args).thenApply(Grant::of),
              start + timeout.toNanos());
      int granted = Quorum.count(grants, Grant::granted);
      if (granted >= majority) {
        Optional<Lease> lease = hold(k, name, holder, ttl, token, grants, start);
        if (lease.isPresent()) {
          return lease;
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
      int held = Quorum.count(grants, g -> "held".equals(g.refusal()));
      int fired = Quorum.count(grants, g -> "fired".equals(g.refusal()));
      int unknown = (int) grants.stream().filter(Objects::isNull).count();
      boolean splitVote = held > 0 && fired <= nodes.size() - majority;
      if (splitVote && attempt < MAX_ATTEMPTS && System.nanoTime() < giveUp) {
        pause(attempt);
        continue;
      }
      if (granted + unknown >= majority) {
        throw new LeaseStoreException(
            "Redlock: "
                + script.name()
                + " of "
                + name
                + ": only "
                + (nodes.size() - unknown)
                + " of "
                + nodes.size()
                + " nodes answered, "
                + majority
                + " needed; not acquired");
      }
      log.debug(
          "{} of {} refused: {} held, {} fired, {} granted of {}",
          script.name(),
          name,
          held,
          fired,
          granted,
          nodes.size());
      return Optional.empty();
    }
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
    long fence =
        grants.stream()
            .filter(g -> g != null && g.granted())
            .mapToLong(Grant::fence)
            .max()
            .orElseThrow();
    int level = Quorum.count(grants, g -> g.granted() && g.fence() == fence);
    List<RedisNode> behind = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      Grant g = grants.get(i);
      if (g != null && g.granted() && g.fence() < fence) {
        behind.add(nodes.get(i));
      }
    }
    if (!behind.isEmpty()) {
      List<Long> raised =
          Quorum.ask(
              behind,
              n -> n.<Long>eval(LuaScript.RAISE_FENCE, k, token, "" + fence),
              start + timeout.toNanos());
      level += Quorum.count(raised, r -> r == 1L);
    }
    long ttlMs = ttl.toMillis();
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long validity = ttlMs - elapsedMs - (ttlMs / 100 + 2);
    if (level < majority || validity <= 0) {
      log.debug(
          "lease {} not confirmed: {} nodes at fence {}, validity {} ms",
          name,
          level,
          fence,
          validity);
      return Optional.empty();
    }
    fenceHint.merge(name, fence, Math::max);
    long serverNow =
        grants.stream()
            .filter(g -> g != null && g.granted())
            .mapToLong(Grant::serverMillis)
            .min()
            .orElseThrow();
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
          return claim && g != null && g.granted()
              ? n.<Long>eval(LuaScript.RELEASE, k, token, g.previousWatermark())
              : n.<Long>eval(LuaScript.RELEASE, k, token);
        },
        System.nanoTime() + timeout.toNanos());
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L << attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseStoreException("Redlock: interrupted while retrying", e);
    }
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
    List<Long> answers =
        Quorum.ask(
            nodes,
            n -> n.<Long>eval(LuaScript.RENEW, k, lease.token(), "" + ttlMs),
            start + timeout.toNanos());
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    Boolean verdict = verdict(answers, "renew", lease.name());
    if (Boolean.TRUE.equals(verdict) && ttlMs - elapsedMs - (ttlMs / 100 + 2) > 0) {
      return true;
    }
    log.warn("renewal of {} refused by the majority of {} nodes", lease, nodes.size());
    return false;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    List<Long> answers =
        Quorum.ask(
            nodes,
            n -> n.<Long>eval(LuaScript.RELEASE, k, lease.token()),
            System.nanoTime() + timeout.toNanos());
    return verdict(answers, "release", lease.name());
  }

  /** True with m "yes", false with more "no" than a majority allows, else too few answers. */
  private Boolean verdict(List<Long> answers, String what, String name) {
    int yes = Quorum.count(answers, a -> a == 1L);
    int no = Quorum.count(answers, a -> a == 0L);
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
                n.<List<Object>>eval(LuaScript.INSPECT, keys.lease(name))
                    .thenApply(r -> Optional.ofNullable(NodeState.of(r))),
            System.nanoTime() + timeout.toNanos());
    int answered = Quorum.count(answers, a -> true);
    if (answered < majority) {
      throw tooFew("inspect of " + name, answered);
    }
    List<NodeState> states =
        answers.stream().filter(Objects::nonNull).flatMap(Optional::stream).toList();
    return NodeState.merge(name, states, majority);
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

  List<RedisNode> nodes() {
    return nodes;
  }

  LeaseKeys keys() {
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
