package dev.leasehold.app.wiring;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.ConfigLoader;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.store.Namespace;
import dev.leasehold.core.store.StoreFactory;
import java.nio.file.Path;
import java.util.Map;

/**
 * A configuration that passed every check that needs no I/O, with the store factory it names. Every
 * command goes through {@link #load}, so {@code validate} and {@code run} give the same verdict.
 * The factory opens backends that see the configured {@code namespace} only ({@link Namespace}).
 */
public record PreparedConfig(DaemonConfig config, StoreFactory storeFactory) {

  public static PreparedConfig load(Path file, Map<String, String> env, StoreModules stores)
      throws ConfigException {
    DaemonConfig config = new ConfigLoader(env, LeaseDefaults.node(env)).load(file);
    // every command and the daemon open the store through this factory, so all of them see the
    // configured namespace only
    return new PreparedConfig(config, Namespace.of(config.namespace()).wrap(stores.select(config)));
  }
}
