package dev.leasehold.store.sql;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.MapBinder;
import dev.leasehold.core.store.StoreFactory;

/**
 * Adds the SQL store to the daemon's store types: {@code h2}, {@code mysql}, {@code mariadb},
 * {@code postgres} and {@code postgresql}. Found through {@code META-INF/services}; does no I/O.
 */
public final class SqlStoreModule extends AbstractModule {
  @Override
  protected void configure() {
    MapBinder<String, StoreFactory> stores =
        MapBinder.newMapBinder(binder(), String.class, StoreFactory.class);
    for (String type : SqlVendor.TYPES) {
      stores.addBinding(type).to(SqlStoreFactory.class);
    }
  }
}
