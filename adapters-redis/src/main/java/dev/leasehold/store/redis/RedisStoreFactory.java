package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreOption;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.RedisOptions;
import dev.leasehold.store.redis.node.RedisUris;
import dev.leasehold.store.redis.redlock.RedlockLeaseRecords;
import dev.leasehold.store.redis.redlock.RedlockLeaseStore;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Opens {@code store.type: redis} (one server, {@code store.url}) and {@code store.type: redlock}
 * (3 or 5 independent masters, {@code store.urls}). Options ({@code store.options}): {@code
 * history-max} (records kept per job, default 1000) and {@code wait-replicas} (replicas that must
 * acknowledge each claim, acquisition and renewal, default 0).
 */
public final class RedisStoreFactory implements StoreFactory {
  static final String REDIS = "redis";
  static final String REDLOCK = "redlock";

  @Override
  public Set<String> types() {
    return Set.of(REDIS, REDLOCK);
  }

  @Override
  public List<StoreOption<?>> options() {
    return RedisOptions.ALL;
  }

  @Override
  public Map<String, String> logLevels() {
    return Map.of("io.lettuce", "WARN", "io.netty", "WARN", "reactor", "WARN");
  }

  @Override
  public Set<String> driverPackages() {
    return Set.of("io.lettuce", "io.netty", "reactor");
  }

  @Override
  public String validate(StoreSettings settings) {
    String problem =
        switch (settings.type()) {
          case REDIS -> RedisUris.problem("store.url", settings.url(), true);
          case REDLOCK -> RedisUris.quorumProblem(settings.urls());
          default -> "store.type: expected redis or redlock, got " + settings.type();
        };
    if (problem != null) {
      return problem;
    }
    if (settings.keyPrefix() != null && LeaseKeys.problem(settings.keyPrefix()) != null) {
      return "store.key-prefix: " + LeaseKeys.problem(settings.keyPrefix());
    }
    // Redis takes a password alone (requirepass), so only a user without one is refused
    if (settings.usernameWithoutPasswordProblem() != null) {
      return settings.usernameWithoutPasswordProblem();
    }
    if (settings.commandTimeoutProblem() != null) {
      return settings.commandTimeoutProblem();
    }
    return RedisOptions.problem(settings);
  }

  @Override
  public StoreBackend open(StoreSettings settings) {
    String problem = validate(settings);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    long maxPerJob = RedisOptions.HISTORY_MAX.value(settings);
    if (REDIS.equals(settings.type())) {
      RedisLeaseStore store = RedisLeaseStore.open(settings);
      return new RedisStoreBackend(
          store,
          new RedisLeaseRecords(store.node(), store.keys()),
          java.util.List.of(store.node()),
          store.keys(),
          maxPerJob);
    }
    RedlockLeaseStore store = RedlockLeaseStore.open(settings);
    return new RedisStoreBackend(
        store,
        new RedlockLeaseRecords(store.redisNodes(), store.keys()),
        store.redisNodes(),
        store.keys(),
        maxPerJob);
  }
}
