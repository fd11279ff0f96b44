package dev.leasehold.store.fake;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.RedisStoreFactory;
import java.util.Set;

/**
 * Fixture for the architecture rules, never registered as a service: a new adapter package that
 * nobody listed in the rules, breaking them by reusing another adapter's factory.
 */
public final class FakeStoreFactory implements StoreFactory {
  private final StoreFactory borrowed = new RedisStoreFactory();

  @Override
  public Set<String> types() {
    return Set.of("fake");
  }

  @Override
  public String validate(StoreSettings settings) {
    return borrowed.validate(settings);
  }

  @Override
  public StoreBackend open(StoreSettings settings) {
    return borrowed.open(settings);
  }
}
