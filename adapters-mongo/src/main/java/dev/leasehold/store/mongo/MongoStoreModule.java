package dev.leasehold.store.mongo;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.MapBinder;
import dev.leasehold.core.store.StoreFactory;

/** Registers the {@code mongo} store type. Does no I/O: the client opens in the factory. */
public final class MongoStoreModule extends AbstractModule {
  @Override
  protected void configure() {
    MapBinder.newMapBinder(binder(), String.class, StoreFactory.class)
        .addBinding(MongoStoreFactory.TYPE)
        .to(MongoStoreFactory.class);
  }
}
