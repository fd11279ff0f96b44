package dev.leasehold.app.wiring;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.MapBinder;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.KeyPaths;
import dev.leasehold.app.config.StoreCatalog;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The store adapters on the classpath, found through Leasehold's own service type: each adapter
 * lists its {@link StoreFactory} in {@code
 * META-INF/services/dev.leasehold.core.store.StoreFactory}, and the factory's {@link
 * StoreFactory#types()} is the one place its {@code store.type} names are declared. Factories do no
 * I/O when constructed, so discovering them opens nothing. Only Leasehold's service type is loaded:
 * no other jar's code is run by discovery.
 */
public final class StoreModules {
  private final Map<String, StoreFactory> factories;

  private StoreModules(Map<String, StoreFactory> factories) {
    this.factories = factories;
  }

  /** Every store factory found through {@link ServiceLoader}. */
  public static StoreModules discover() {
    return of(StoreCatalog.discovered().factories());
  }

  /**
   * The factories given (for tests and embedding).
   *
   * @throws IllegalStateException when two factories claim the same type name
   */
  public static StoreModules of(List<? extends StoreFactory> found) {
    Map<String, StoreFactory> byType = new TreeMap<>();
    for (StoreFactory factory : found) {
      for (String type : factory.types()) {
        StoreFactory before = byType.putIfAbsent(type, factory);
        if (before != null && before.getClass() != factory.getClass()) {
          throw new IllegalStateException(
              "store type '"
                  + type
                  + "' is declared by both "
                  + before.getClass().getName()
                  + " and "
                  + factory.getClass().getName());
        }
      }
    }
    return new StoreModules(byType);
  }

  /**
   * A Guice module that binds what discovery found: a {@code Map<String, StoreFactory>} keyed by
   * store type, for applications that inject the factories.
   */
  public Module guiceModule() {
    Map<String, StoreFactory> snapshot = Map.copyOf(factories);
    return new AbstractModule() {
      @Override
      protected void configure() {
        MapBinder<String, StoreFactory> map =
            MapBinder.newMapBinder(binder(), String.class, StoreFactory.class);
        snapshot.forEach((type, factory) -> map.addBinding(type).toInstance(factory));
      }
    };
  }

  /** The known {@code store.type} names, sorted. */
  public List<String> types() {
    return List.copyOf(factories.keySet());
  }

  /** The factory registered under {@code type}, if any (for embedding: no validation). */
  public Optional<StoreFactory> factory(String type) {
    return Optional.ofNullable(factories.get(type));
  }

  /**
   * The factory for the config's {@code store.type}, after it checked the store settings (no I/O).
   *
   * @throws ConfigException for an unknown type or settings the factory refuses
   */
  public StoreFactory select(DaemonConfig config) throws ConfigException {
    StoreSettings settings = config.store();
    StoreFactory factory = factories.get(settings.type());
    if (factory == null) {
      throw new ConfigException(
          config.file(),
          KeyPaths.STORE_TYPE,
          "unknown store type '"
              + settings.type()
              + "'; known: "
              + (factories.isEmpty()
                  ? "none (no store adapter on the classpath)"
                  : String.join(", ", types())));
    }
    String problem;
    try {
      problem = factory.validate(settings);
    } catch (RuntimeException e) {
      problem = "store: " + e.getMessage();
    }
    if (problem != null) {
      throw new ConfigException(config.file(), null, problem);
    }
    return factory;
  }
}
