package dev.leasehold.core.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Opens a store of one technology. Each adapter module provides one; the daemon picks the factory
 * whose {@link #types()} contains {@code store.type}. {@link #validate} must do no I/O; {@link
 * #open} may connect lazily.
 *
 * <p>Everything the application knows about a store comes from here: its type names, the options it
 * reads ({@link #options()}), its default type and URL, how loud its drivers may log and which
 * packages are its drivers. No other place lists stores.
 */
public interface StoreFactory {

  /** The {@code store.type} names this factory serves, e.g. {@code h2}, {@code mysql}. */
  Set<String> types();

  /**
   * Checks the settings without connecting. Returns {@code null} when they are fine, else a
   * one-line problem that names the field, e.g. {@code "store.url: expected redis://..."}.
   */
  String validate(StoreSettings settings);

  /** Opens the store (runs migrations where the store has them). */
  StoreBackend open(StoreSettings settings);

  /** The keys of {@code store.options} this store reads, each with its parser and default. */
  default List<StoreOption<?>> options() {
    return List.of();
  }

  /**
   * The {@code store.type} used when the configuration names none, when this factory provides the
   * default store (one does: the embedded H2 database); else {@code null}.
   */
  default String defaultType() {
    return null;
  }

  /** The {@code store.url} used for {@code type} when none is given, or {@code null}: required. */
  default String defaultUrl(String type) {
    return null;
  }

  /**
   * Logger names of this store's drivers and the level they log at in the daemon ({@code WARN},
   * {@code ERROR}, ...): for libraries that are chatty at INFO.
   */
  default Map<String, String> logLevels() {
    return Map.of();
  }

  /** The packages of the drivers this store uses (e.g. {@code io.lettuce}); none of the core's. */
  default Set<String> driverPackages() {
    return Set.of();
  }

  /**
   * The TTL whose expiry the conformance self-check waits for on this store ({@link
   * StoreSelfCheck#SHORT_TTL} unless the store says otherwise). A store whose expiry follows a
   * clock with millisecond precision that the check's own process reads too (an embedded database)
   * can take a shorter one: the check then waits less in front of every start.
   */
  default Duration selfCheckTtl(StoreSettings settings) {
    return StoreSelfCheck.SHORT_TTL;
  }
}
