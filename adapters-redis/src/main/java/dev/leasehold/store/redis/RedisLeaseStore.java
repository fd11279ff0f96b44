package dev.leasehold.store.redis;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
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
 * or loser. A batch ({@link #claimAll}) is the same script over up to {@value #BATCH} names per
 * call, each entry decided exactly as a single claim. The lease key expires by {@code PX} on the
 * server's clock, so replicas with skewed clocks agree on expiry.
 *
 * <p>Fail closed: a timeout, a lost connection or a reply of the wrong shape ({@link Replies}) is a
 * {@link LeaseStoreException}. A claim that timed out may still have succeeded on the server; it is
 * reported as not acquired, nobody runs the job, and the orphaned lease simply expires after its
 * TTL (the firing is then spent: its watermark was written). Commands are never queued while
 * disconnected ({@link RedisConnector}), so a late renewal cannot revive anything. With {@code
 * wait-replicas: N} a claim, acquisition or renewal counts only once N replicas acknowledged it
 * ({@code WAIT}); a claim or acquisition that was not is undone and reported as a failure.
 *
 * <p>Exactly-once across a restart of Redis needs persistence (AOF): without it the watermark is
 * lost with the data set and a late replica could claim a firing that already ran.
 */
public final class RedisLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(RedisLeaseStore.class);

  /** Names per claim script: bounds how long one call keeps the server busy (a few ms). */
  static final int BATCH = 500;

  private final RedisConnector connector;
  private final RedisNode node;
  private final LeaseKeys keys;
  private final FenceHints hints = new FenceHints();

  private RedisLeaseStore(RedisConnector connector, RedisNode node, LeaseKeys keys) {
    this.connector = connector;
    this.node = node;
    this.keys = keys;
  }

  /**
   * A store on {@code settings.url()} with its own connection; connects on first use. Uses {@code
   * keyPrefix} (default {@code lh:}), {@code username}/{@code password}, {@code commandTimeout} and
   * the option {@code wait-replicas}.
   */
  public static RedisLeaseStore open(StoreSettings settings) {
    String problem = RedisUris.problem("store.url", settings.url(), true);
    if (problem == null) {
      problem = RedisStoreFactory.optionProblem(settings);
    }
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    LeaseKeys keys = LeaseKeys.of(settings.keyPrefix());
    RedisConnector connector =
        new RedisConnector(settings.commandTimeout(), RedisStoreFactory.waitReplicas(settings));
    if (RedisUris.isCluster(settings.url())) {
      List<io.lettuce.core.RedisURI> seeds = RedisUris.clusterSeeds(settings.url(), settings);
      return new RedisLeaseStore(
          connector, connector.cluster(seeds, RedisUris.describeCluster(seeds)), keys);
    }
    return new RedisLeaseStore(
        connector, connector.node(RedisUris.parse(settings.url(), settings)), keys);
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
    ClaimResult result =
        node.await(send(List.of(new ClaimRequest(name, firing, holder, ttl))), "claim").get(0);
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
      for (int from = 0; from < group.size(); from += BATCH) {
        List<Integer> call = group.subList(from, Math.min(group.size(), from + BATCH));
        calls.add(call);
        sent.add(send(call.stream().map(requests::get).toList()));
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

  /** One claim script over {@code batch}; never completes exceptionally but per entry. */
  private CompletableFuture<List<ClaimResult>> send(List<ClaimRequest> batch) {
    String[] k = new String[batch.size() * 2];
    String[] args = new String[batch.size() * 5];
    long[] minFence = new long[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      ClaimRequest r = batch.get(i);
      String[] pair = keys.lease(r.name());
      k[2 * i] = pair[0];
      k[2 * i + 1] = pair[1];
      minFence[i] = hints.next(r.name());
      args[5 * i] = LeaseArguments.newToken();
      args[5 * i + 1] = "" + r.ttl().toMillis();
      args[5 * i + 2] = "" + r.firing().toEpochMilli();
      args[5 * i + 3] = r.holder();
      args[5 * i + 4] = "" + minFence[i];
    }
    String what = batch.size() == 1 ? "claim of " + batch.get(0).name() : "claim of a batch";
    return node.eval(LuaScript.CLAIM, k, args)
        .thenApply(reply -> grants(reply, batch, minFence))
        .thenCompose(grants -> replicated(what, grants, batch, args))
        .handle(
            (grants, e) ->
                e != null ? failAll(batch, node.failure(what, e)) : results(batch, grants, args));
  }

  private List<Grant> grants(Object reply, List<ClaimRequest> batch, long[] minFence) {
    String where = "Redis " + node.address() + ": claim";
    List<?> entries = Replies.array(where, reply, batch.size());
    List<Grant> grants = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      ClaimRequest r = batch.get(i);
      grants.add(
          Grant.of(
              where + " of " + r.name(), entries.get(i), r.firing().toEpochMilli(), minFence[i]));
    }
    return grants;
  }

  /**
   * With {@code wait-replicas}, WAIT once for the whole batch when it granted anything; when too
   * few replicas acknowledge, every grant is undone (token-checked, watermark put back: nobody else
   * can have claimed in between, and this client runs nothing) and the batch fails.
   */
  private CompletableFuture<List<Grant>> replicated(
      String what, List<Grant> grants, List<ClaimRequest> batch, String[] args) {
    if (node.waitReplicas() == 0 || grants.stream().noneMatch(Grant::granted)) {
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
              for (int i = 0; i < batch.size(); i++) {
                if (grants.get(i).granted()) {
                  undo.add(
                      node.eval(
                          LuaScript.RELEASE,
                          keys.lease(batch.get(i).name()),
                          args[5 * i],
                          grants.get(i).previousWatermark()));
                }
              }
              return CompletableFuture.allOf(undo.toArray(CompletableFuture[]::new))
                  .handle((v, ignored) -> null)
                  .thenCompose(v -> CompletableFuture.failedFuture(e));
            });
  }

  private List<ClaimResult> results(List<ClaimRequest> batch, List<Grant> grants, String[] args) {
    List<ClaimResult> results = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      ClaimRequest r = batch.get(i);
      Grant g = grants.get(i);
      if (g.granted()) {
        hints.granted(r.name(), g.fence());
        Instant expiresAt = Instant.ofEpochMilli(g.serverMillis()).plus(r.ttl());
        results.add(
            ClaimResult.won(
                new Lease(r.name(), r.holder(), args[5 * i], g.fence(), r.ttl(), expiresAt)));
      } else {
        log.debug("claim of {} refused: {}", r.name(), g.refusal());
        results.add(g.refusalResult());
      }
    }
    return results;
  }

  private static List<ClaimResult> failAll(List<ClaimRequest> batch, LeaseStoreException e) {
    List<ClaimResult> results = new ArrayList<>(batch.size());
    batch.forEach(r -> results.add(ClaimResult.failed(e)));
    return results;
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String token = LeaseArguments.newToken();
    long minFence = hints.next(name);
    String[] k = keys.lease(name);
    String where = "Redis " + node.address() + ": acquire of " + name;
    Object reply =
        node.await(
            node.eval(LuaScript.ACQUIRE, k, token, "" + ttlMs, holder, "" + minFence), "acquire");
    Grant grant = Grant.of(where, reply, null, minFence);
    if (!grant.granted()) {
      log.debug("acquire of {} refused: held", name);
      return Optional.empty();
    }
    if (node.waitReplicas() > 0) {
      try {
        node.await(node.replicated("acquire of " + name), "acquire");
      } catch (LeaseStoreException e) {
        node.await(node.eval(LuaScript.RELEASE, k, token), "undo of acquire");
        throw e;
      }
    }
    hints.granted(name, grant.fence());
    Instant expiresAt = Instant.ofEpochMilli(grant.serverMillis()).plus(ttl);
    return Optional.of(new Lease(name, holder, token, grant.fence(), ttl, expiresAt));
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
    if (node.waitReplicas() > 0) {
      node.await(node.replicated("renewal of " + lease.name()), "renew");
    }
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
