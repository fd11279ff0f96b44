package dev.leasehold.core.store;

import java.util.Set;

/**
 * Opens a store of one technology. Each adapter module provides one; the daemon picks the factory
 * whose {@link #types()} contains {@code store.type}. {@link #validate} must do no I/O; {@link
 * #open} may connect lazily.
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
}
