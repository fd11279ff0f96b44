package dev.leasehold.app.wiring;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import com.google.inject.multibindings.MapBinder;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The store adapters on the classpath. Each adapter contributes one Guice module, listed in its
 * {@code META-INF/services/com.google.inject.Module}, that adds its {@link StoreFactory} to a
 * {@code MapBinder<String, StoreFactory>} under its {@code store.type} name(s). Modules do no I/O
 * in {@code configure()}, so discovering them opens nothing.
 */
public final class StoreModules {
  private static final Key<Map<String, StoreFactory>> FACTORIES =
      Key.get(new TypeLiteral<Map<String, StoreFactory>>() {});

  private final Map<String, StoreFactory> factories;

  private StoreModules(Map<String, StoreFactory> factories) {
    this.factories = new TreeMap<>(factories);
  }

  /** Every store module found through {@link ServiceLoader}. */
  public static StoreModules discover() {
    List<Module> modules = new ArrayList<>();
    ServiceLoader.load(Module.class).forEach(modules::add);
    return of(modules);
  }

  /** The store modules given (for tests and embedding). */
  public static StoreModules of(List<? extends Module> modules) {
    List<Module> all = new ArrayList<>(modules);
    all.add(
        new AbstractModule() {
          @Override
          protected void configure() {
            // declares the map even when no adapter is present, so an empty map is an answer
            MapBinder.newMapBinder(binder(), String.class, StoreFactory.class);
          }
        });
    Injector injector = Guice.createInjector(Stage.PRODUCTION, all);
    return new StoreModules(injector.getInstance(FACTORIES));
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
          "store.type",
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
