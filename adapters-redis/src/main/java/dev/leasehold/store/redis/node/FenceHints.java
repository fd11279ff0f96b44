package dev.leasehold.store.redis.node;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The largest fence this client has been granted per name. Each claim proposes one more as the
 * minimum fence ({@code max(fence + 1, proposed)} in the scripts), and the reply must show at least
 * that: fences this process hands out keep rising even after a server lost its data (a restart
 * without persistence, a failover to a replica that lagged), and a server that answers a grant it
 * never applied is caught at the next claim. Not needed for safety where the server keeps its data;
 * bounded: forgotten wholesale beyond {@value #MAX} names.
 */
public final class FenceHints {
  private static final int MAX = 100_000;
  private final Map<String, Long> highest = new ConcurrentHashMap<>();

  /** The smallest fence the next grant of {@code name} may carry. */
  public long next(String name) {
    return highest.getOrDefault(name, 0L) + 1;
  }

  public void granted(String name, long fence) {
    if (highest.size() >= MAX) {
      highest.clear();
    }
    highest.merge(name, fence, Math::max);
  }
}
