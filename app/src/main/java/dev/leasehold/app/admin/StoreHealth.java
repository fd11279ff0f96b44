package dev.leasehold.app.admin;

import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store answered recently. Scheduler events (claims, refusals, errors) update it as
 * they happen; when nothing happened for {@link #FRESH}, a health check pings the store itself (one
 * round trip), so {@code /health} is right for daily jobs too.
 */
public final class StoreHealth {
  private static final Logger log = LoggerFactory.getLogger(StoreHealth.class);
  static final Duration FRESH = Duration.ofSeconds(10);

  private final StoreBackend backend;
  private final LongSupplier nanoTime;
  private volatile long lastAnswer = Long.MIN_VALUE;
  private volatile long lastFailure = Long.MIN_VALUE;

  public StoreHealth(StoreBackend backend, LongSupplier nanoTime) {
    this.backend = backend;
    this.nanoTime = nanoTime;
  }

  void answered() {
    lastAnswer = nanoTime.getAsLong();
  }

  void failed() {
    lastFailure = nanoTime.getAsLong();
  }

  /** True when the store's latest known answer is recent and newer than its latest failure. */
  public boolean healthy() {
    long now = nanoTime.getAsLong();
    boolean fresh = lastAnswer != Long.MIN_VALUE && now - lastAnswer < FRESH.toNanos();
    if (fresh && (lastFailure == Long.MIN_VALUE || lastAnswer - lastFailure > 0)) {
      return true;
    }
    try {
      backend.ping();
      answered();
      return true;
    } catch (RuntimeException e) {
      failed();
      log.debug("health check: store did not answer: {}", e.getMessage());
      return false;
    }
  }
}
