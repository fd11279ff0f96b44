package dev.leasehold.store.redis.node;

import dev.leasehold.core.store.StoreOption;
import dev.leasehold.core.store.StoreSettings;
import java.util.List;

/**
 * The store options ({@code store.options}) of both Redis stores, declared once with their types
 * and defaults: {@code history-max} (records kept per job) and {@code wait-replicas} (replicas that
 * must acknowledge each claim, acquisition and renewal).
 */
public final class RedisOptions {
  /** Records kept per job when {@code history-max} is not set. */
  public static final long DEFAULT_HISTORY_MAX = 1000;

  public static final StoreOption<Long> HISTORY_MAX =
      StoreOption.positiveWholeNumber("history-max", DEFAULT_HISTORY_MAX, "Records kept per job.");

  public static final StoreOption<Integer> WAIT_REPLICAS =
      new StoreOption<>(
          "wait-replicas",
          text -> {
            if (!text.matches("[0-9]{1,2}")) {
              throw new IllegalArgumentException(
                  "expected a whole number of replicas from 0 to 99, got " + text);
            }
            return Integer.parseInt(text);
          },
          0,
          "0",
          "Replicas that must acknowledge each claim, acquisition and renewal (WAIT).");

  /** Every option, as the factory declares them. */
  public static final List<StoreOption<?>> ALL = List.of(HISTORY_MAX, WAIT_REPLICAS);

  private RedisOptions() {}

  /** Why {@code store.options} cannot be used, or null; also checked when a store is opened. */
  public static String problem(StoreSettings settings) {
    String wait = settings.options().get(WAIT_REPLICAS.name());
    if ("redis".equals(settings.type())
        && RedisUris.isCluster(settings.url())
        && wait != null
        && !"0".equals(wait)) {
      return WAIT_REPLICAS.path()
          + ": not supported with a redis-cluster:// URL (WAIT acknowledges one connection's"
          + " writes to one master)";
    }
    return StoreOption.problem(ALL, settings);
  }

  /** The {@code wait-replicas} option, 0 when absent (checked by {@link #problem}). */
  public static int waitReplicas(StoreSettings settings) {
    return WAIT_REPLICAS.value(settings);
  }
}
