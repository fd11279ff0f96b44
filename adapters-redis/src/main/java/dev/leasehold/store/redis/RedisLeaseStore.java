package dev.leasehold.store.redis;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on one Redis server (standalone, or the master that Sentinel names).
 *
 * <p>Each operation is one Lua script ({@link LuaScript}), so it is atomic on the server: claim
 * checks "no live lease and watermark before the firing" and writes lease, fence and watermark in
 * the same step, and no other command can run in between. The lease key expires by {@code PX} on
 * the server's clock, so replicas with skewed clocks agree on expiry.
 *
 * <p>Fail closed: a timeout or a lost connection is a {@link
 * dev.leasehold.core.lease.LeaseStoreException}. A claim that timed out may still have succeeded on
 * the server; it is reported as not acquired, nobody runs the job, and the orphaned lease simply
 * expires after its TTL (the firing is then spent: its watermark was written). Commands are never
 * queued while disconnected ({@link RedisConnector}), so a late renewal cannot revive anything.
 *
 * <p>Exactly-once across a restart of Redis needs persistence (AOF): without it the watermark is
 * lost with the data set and a late replica could claim a firing that already ran.
 */
public final class RedisLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(RedisLeaseStore.class);

  private final RedisConnector connector;
  private final RedisNode node;
  private final LeaseKeys keys;

  private RedisLeaseStore(RedisConnector connector, RedisNode node, LeaseKeys keys) {
    this.connector = connector;
    this.node = node;
    this.keys = keys;
  }

  /**
   * A store on {@code settings.url()} with its own connection; connects on first use. Uses {@code
   * keyPrefix} (default {@code lh:}), {@code username}/{@code password} and {@code commandTimeout}.
   */
  public static RedisLeaseStore open(StoreSettings settings) {
    String problem = RedisUris.problem("store.url", settings.url(), true);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    LeaseKeys keys = LeaseKeys.of(settings.keyPrefix());
    RedisConnector connector = new RedisConnector(settings.commandTimeout());
    return new RedisLeaseStore(
        connector, connector.node(RedisUris.parse(settings.url(), settings)), keys);
  }

  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    long fire = LeaseArguments.firing(firing).toEpochMilli();
    LeaseArguments.holder(holder);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String token = LeaseArguments.newToken();
    return take(LuaScript.CLAIM, name, holder, ttl, token, "" + ttlMs, "" + fire, holder, "0");
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String token = LeaseArguments.newToken();
    return take(LuaScript.ACQUIRE, name, holder, ttl, token, "" + ttlMs, holder, "0");
  }

  private Optional<Lease> take(
      LuaScript script, String name, String holder, Duration ttl, String token, String... rest) {
    String[] args = new String[rest.length + 1];
    args[0] = token;
    System.arraycopy(rest, 0, args, 1, rest.length);
    Grant grant =
        Grant.of(
            node.<List<Object>>await(node.eval(script, keys.lease(name), args), script.name()));
    if (!grant.granted()) {
      log.debug("{} of {} refused: {}", script.name(), name, grant.refusal());
      return Optional.empty();
    }
    Instant expiresAt = Instant.ofEpochMilli(grant.serverMillis()).plus(ttl);
    return Optional.of(new Lease(name, holder, token, grant.fence(), ttl, expiresAt));
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    Long renewed = node.await(node.eval(LuaScript.RENEW, k, lease.token(), "" + ttlMs), "renew");
    if (renewed != 1L) {
      log.warn("renewal of {} refused: the lease expired or was taken", lease);
    }
    return renewed == 1L;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    String[] k = keys.lease(LeaseArguments.name(lease.name()));
    Long released = node.await(node.eval(LuaScript.RELEASE, k, lease.token()), "release");
    return released == 1L;
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
    return node.<List<Object>>eval(LuaScript.INSPECT, keys.lease(name)).thenApply(NodeState::of);
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
