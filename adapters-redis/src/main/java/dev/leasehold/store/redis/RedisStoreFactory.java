package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
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
  private static final String HISTORY_MAX = "history-max";
  private static final String WAIT_REPLICAS = "wait-replicas";

  @Override
  public Set<String> types() {
    return Set.of(REDIS, REDLOCK);
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
    if (settings.username() != null && settings.password() == null) {
      return "store.username: needs store.password as well";
    }
    if (settings.commandTimeoutProblem() != null) {
      return settings.commandTimeoutProblem();
    }
    return optionProblem(settings);
  }

  /** Why {@code store.options} cannot be used, or null; also checked when a store is opened. */
  static String optionProblem(StoreSettings settings) {
    String wait = settings.options().get(WAIT_REPLICAS);
    if (REDIS.equals(settings.type())
        && RedisUris.isCluster(settings.url())
        && wait != null
        && !"0".equals(wait)) {
      return "store.options."
          + WAIT_REPLICAS
          + ": not supported with a redis-cluster:// URL (WAIT acknowledges one connection's"
          + " writes to one master)";
    }
    String max = settings.positiveWholeNumberOptionProblem(HISTORY_MAX);
    if (max != null) {
      return max;
    }
    if (wait != null && !wait.matches("[0-9]{1,2}")) {
      return "store.options."
          + WAIT_REPLICAS
          + ": expected a whole number of replicas from 0 to 99, got "
          + wait;
    }
    return null;
  }

  /** The {@code wait-replicas} option, 0 when absent (checked by {@link #optionProblem}). */
  static int waitReplicas(StoreSettings settings) {
    return Integer.parseInt(settings.options().getOrDefault(WAIT_REPLICAS, "0"));
  }

  @Override
  public StoreBackend open(StoreSettings settings) {
    String problem = validate(settings);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    long maxPerJob =
        settings.positiveWholeNumberOption(HISTORY_MAX, RedisExecutionLog.DEFAULT_MAX_PER_JOB);
    if (REDIS.equals(settings.type())) {
      RedisLeaseStore store = RedisLeaseStore.open(settings);
      return new RedisStoreBackend(store, java.util.List.of(store.node()), store.keys(), maxPerJob);
    }
    RedlockLeaseStore store = RedlockLeaseStore.open(settings);
    return new RedisStoreBackend(store, store.nodes(), store.keys(), maxPerJob);
  }
}
