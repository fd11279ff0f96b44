package dev.leasehold.store.redis;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.MapBinder;
import dev.leasehold.core.store.StoreFactory;

/** Registers the store types {@code redis} and {@code redlock}. Does no I/O. */
public final class RedisStoreModule extends AbstractModule {
  @Override
  protected void configure() {
    MapBinder<String, StoreFactory> factories =
        MapBinder.newMapBinder(binder(), String.class, StoreFactory.class);
    factories.addBinding(RedisStoreFactory.REDIS).to(RedisStoreFactory.class);
    factories.addBinding(RedisStoreFactory.REDLOCK).to(RedisStoreFactory.class);
  }
}
