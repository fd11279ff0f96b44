package dev.leasehold.store.redis;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.node.ClaimEntry;
import dev.leasehold.store.redis.node.ClaimScript;
import dev.leasehold.store.redis.node.ClaimUndo;
import dev.leasehold.store.redis.node.Grant;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.NodeState;
import dev.leasehold.store.redis.node.RedisConnector;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.RedisOptions;
import dev.leasehold.store.redis.node.RedisUris;
import dev.leasehold.store.redis.node.Replies;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on one Redis server (standalone, or the master that Sentinel names).
 *
 * <p>Each operation is one Lua script ({@link LuaScript}), so it is atomic on the server: claim
 * checks "watermark before the firing and no live lease" and writes lease, fence and watermark in
 * the same step, and no other command can run in between. Its answer says why a refusal happened
 * (held, with the holder, or already run, with the watermark), so a claim is one round trip, winner
 * or loser. A batch ({@link #claimAll}) is the same script over up to {@value ClaimScript#BATCH}
 * names per call, each entry decided exactly as a single claim. The lease key expires by {@code PX}
 * on the server's clock, so replicas with skewed clocks agree on expiry.
 *
 * <p>Fail closed: a timeout, a lost connection or a reply of the wrong shape ({@link Replies}) is a
 * {@link LeaseStoreException}. A claim that timed out may still have succeeded on the server; it is
 * reported as not acquired, nobody runs the job, and a token-checked undo ({@link ClaimUndo}) sent
 * right behind it on the same connection gives the lease back and puts the watermark before the
 * firing, so the firing can still be claimed; only when the connection breaks between the two does
 * the orphaned lease stay until its TTL (the firing then spent). Commands are never queued while
 * disconnected ({@link RedisConnector}), so a late renewal cannot revive anything. With {@code
 * wait-replicas: N} a claim, acquisition or renewal counts only once N replicas acknowledged it
 * ({@code WAIT}); a claim or acquisition that was not is undone and reported as a failure.
 *
 * <p>Pauses and forgetting are {@link RedisLeaseRecords}, node records {@link
 * dev.leasehold.store.redis.node.RedisNodeRecords}; the backend holds them beside this store.
 *
 * <p>Exactly-once across a restart of Redis needs persistence (AOF): without it the watermark is
 * lost with the data set and a late replica could claim a firing that already ran.
 */
public final class RedisLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(RedisLeaseStore.class);

  private final RedisConnector connector;
  private final RedisNode node;
  private final LeaseKeys keys;
  private final RedisClaims claims;

  private RedisLeaseStore(RedisConnector connector, RedisNode node, LeaseKeys keys) {
    this.connector = connector;
    this.node = node;
    this.keys = keys;
    this.claims = new RedisClaims(node, keys);
  }

  /**
   * A store on {@code settings.url()} with its own connection; connects on first use. Uses {@code
   * keyPrefix} (default {@code lh:}), {@code username}/{@code password}, {@code commandTimeout} and
   * the option {@code wait-replicas}.
   */
  public static RedisLeaseStore open(StoreSettings settings) {
    String problem = RedisUris.problem("store.url", settings.url(), true);
    if (problem == null) {
      problem = RedisOptions.problem(settings);
    }
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    LeaseKeys keys = LeaseKeys.of(settings.keyPrefix());
    RedisConnector connector =
        new RedisConnector(settings.commandTimeout(), RedisOptions.waitReplicas(settings));
    if (RedisUris.isCluster(settings.url())) {
      List<io.lettuce.core.RedisURI> seeds = RedisUris.clusterSeeds(settings.url(), settings);
      return new RedisLeaseStore(
          connector, connector.cluster(seeds, RedisUris.describeCluster(seeds)), keys);
    }
    return new RedisLeaseStore(
        connector, connector.node(RedisUris.parse(settings.url(), settings)), keys);
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.firing(firing);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    ClaimResult result =
        node.await(claims.send(List.of(new ClaimRequest(name, firing, holder, ttl))), "claim")
            .get(0);
    if (result.kind() == ClaimResult.Kind.FAILED) {
      throw result.failure();
    }
    return result;
  }

  @Override
  public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
    LeaseArguments.batch(requests);
    // on a cluster a script may only touch one slot's keys: one group per slot (each name's keys
    // share its slot through the hash tag); elsewhere one group
    Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      int slot = node.cluster() ? SlotHash.getSlot(keys.lease(requests.get(i).name())[0]) : 0;
      groups.computeIfAbsent(slot, s -> new ArrayList<>()).add(i);
    }
    List<List<Integer>> calls = new ArrayList<>();
    List<CompletableFuture<List<ClaimResult>>> sent = new ArrayList<>();
    for (List<Integer> group : groups.values()) {
      for (int from = 0; from < group.size(); from += ClaimScript.BATCH) {
        List<Integer> call = group.subList(from, Math.min(group.size(), from + ClaimScript.BATCH));
        calls.add(call);
        sent.add(claims.send(call.stream().map(requests::get).toList()));
      }
    }
    ClaimResult[] results = new ClaimResult[requests.size()];
    for (int c = 0; c < calls.size(); c++) {
      List<ClaimResult> answers;
      try {
        answers = node.await(sent.get(c), "claim");
      } catch (LeaseStoreException e) {
        answers = java.util.Collections.nCopies(calls.get(c).size(), ClaimResult.failed(e));
      }
      for (int j = 0; j < answers.size(); j++) {
        results[calls.get(c).get(j)] = answers.get(j);
      }
    }
    return List.of(results);
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    List<ClaimEntry> entry =
        List.of(
            ClaimEntry.acquisition(
                name, keys, LeaseArguments.newToken(), holder, ttl, claims.hint(name)));
    Grant grant = node.await(ClaimScript.send(node, entry), "acquire").get(0);
    if (!grant.granted()) {
      log.debug("acquire of {} refused: held", name);
      return Optional.empty();
    }
    node.await(
        ClaimUndo.unlessReplicated(node, entry.get(0).what(), entry, List.of(grant)), "acquire");
    return Optional.of(claims.lease(entry.get(0), grant));
  }

  /**
   * True when the lease was extended (and, with {@code wait-replicas}, acknowledged by enough
   * replicas: else a {@link LeaseStoreException}, and the lease counts as extended only up to its
   * previous renewal).
   */
  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    String where = "Redis " + node.address() + ": renewal of " + lease.name();
    boolean renewed =
        Replies.flag(
            where, node.await(node.eval(LuaScript.RENEW, k, lease.token(), "" + ttlMs), "renew"));
    if (!renewed) {
      log.warn("renewal of {} refused: the lease expired or was taken", lease);
      return false;
    }
    node.await(node.replicated("renewal of " + lease.name()), "renew");
    return true;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    return Replies.flag(
        "Redis " + node.address() + ": release of " + lease.name(),
        node.await(node.eval(LuaScript.RELEASE, k, lease.token()), "release"));
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    return Optional.ofNullable(node.await(inspectAsync(name), "inspect"))
        .map(state -> state.toState(name));
  }

  @Override
  public List<LeaseState> list() {
    List<String> names =
        node.scan(keys.metaPattern()).stream()
            .map(key -> keys.nameOf(key, false))
            .filter(Objects::nonNull)
            .distinct()
            .sorted()
            .toList();
    List<CompletableFuture<NodeState>> states = names.stream().map(this::inspectAsync).toList();
    List<LeaseState> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      NodeState state = node.await(states.get(i), "inspect");
      if (state != null) {
        out.add(state.toState(names.get(i)));
      }
    }
    return out;
  }

  /** The server's {@code TIME}, the clock of the claim script's expiry. */
  @Override
  public Optional<Instant> storeTime() {
    return Optional.of(node.await(node.time(), "TIME"));
  }

  private CompletableFuture<NodeState> inspectAsync(String name) {
    String where = "Redis " + node.address() + ": inspect of " + name;
    return node.eval(LuaScript.INSPECT, keys.lease(name)).thenApply(r -> NodeState.of(where, r));
  }

  RedisNode node() {
    return node;
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
    return "RedisLeaseStore[" + node.address() + ", prefix=" + keys.prefix() + "]";
  }
}
