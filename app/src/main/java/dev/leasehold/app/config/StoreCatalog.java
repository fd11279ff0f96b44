package dev.leasehold.app.config;

import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the application knows about stores, all of it from the store factories on the class path
 * (Leasehold's own service type, {@code META-INF/services/dev.leasehold.core.store.StoreFactory}):
 * their type names, the default store and its URL, their options, their drivers' log levels and
 * packages. No store is named anywhere else in the application.
 */
public final class StoreCatalog {
  private static final class Discovered {
    static final StoreCatalog CATALOG = of(load());

    private static List<StoreFactory> load() {
      List<StoreFactory> found = new ArrayList<>();
      ServiceLoader.load(StoreFactory.class, StoreCatalog.class.getClassLoader())
          .forEach(found::add);
      return found;
    }
  }

  private final List<StoreFactory> factories;

  private StoreCatalog(List<StoreFactory> factories) {
    this.factories = List.copyOf(factories);
  }

  /** The factories found through {@link ServiceLoader}, once per process. */
  public static StoreCatalog discovered() {
    return Discovered.CATALOG;
  }

  /** The factories given (for tests and embedding). */
  public static StoreCatalog of(List<? extends StoreFactory> factories) {
    return new StoreCatalog(List.copyOf(factories));
  }

  public List<StoreFactory> factories() {
    return factories;
  }

  /** Every {@code store.type} name, sorted. */
  public List<String> types() {
    Set<String> types = new TreeSet<>();
    factories.forEach(f -> types.addAll(f.types()));
    return List.copyOf(types);
  }

  /**
   * The {@code store.type} names of the factories in packages under {@code packagePrefix}, sorted:
   * with {@code dev.leasehold.store.} this repository's adapters, without factories a test or an
   * embedding application adds.
   */
  public List<String> types(String packagePrefix) {
    Set<String> types = new TreeSet<>();
    factories.stream()
        .filter(f -> f.getClass().getPackageName().startsWith(packagePrefix))
        .forEach(f -> types.addAll(f.types()));
    return List.copyOf(types);
  }

  /**
   * The {@code store.type} of a configuration that names none, or null when no store offers one.
   */
  public String defaultType() {
    for (StoreFactory factory : factories) {
      String type = factory.defaultType();
      if (type != null) {
        return type;
      }
    }
    return null;
  }

  /** The {@code store.url} of {@code type} when none is given, or null: required. */
  public String defaultUrl(String type) {
    for (StoreFactory factory : factories) {
      if (factory.types().contains(type)) {
        return factory.defaultUrl(type);
      }
    }
    return null;
  }

  /** Every store's options by name (a name two stores share is listed once, the first one's). */
  public Map<String, StoreOption<?>> options() {
    Map<String, StoreOption<?>> options = new LinkedHashMap<>();
    factories.forEach(f -> f.options().forEach(o -> options.putIfAbsent(o.name(), o)));
    return options;
  }

  /** The drivers' loggers and the levels the stores ask for them. */
  public Map<String, String> logLevels() {
    Map<String, String> levels = new LinkedHashMap<>();
    factories.forEach(f -> levels.putAll(f.logLevels()));
    return levels;
  }

  /** The packages of every store's drivers, sorted. */
  public Set<String> driverPackages() {
    Set<String> packages = new TreeSet<>();
    factories.forEach(f -> packages.addAll(f.driverPackages()));
    return packages;
  }
}
