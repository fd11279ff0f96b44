package dev.leasehold.spring;

import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The Leasehold store's health: up when one round trip ({@link StoreBackend#ping}) answers, down
 * with the store's one-line reason (secrets scrubbed) when it does not. {@link OncePerFiring}
 * methods do not run while the store is down.
 */
final class LeaseholdHealthIndicator implements HealthIndicator {
  private final StoreBackend backend;
  private final String type;

  LeaseholdHealthIndicator(StoreBackend backend, String type) {
    this.backend = backend;
    this.type = type;
  }

  @Override
  public Health health() {
    try {
      backend.ping();
      return Health.up().withDetail("store", type).build();
    } catch (RuntimeException e) {
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return Health.down()
          .withDetail("store", type)
          .withDetail("error", Redaction.scrub(reason.lines().findFirst().orElse("")))
          .build();
    }
  }
}
