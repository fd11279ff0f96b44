package dev.leasehold.app.wiring;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.ConfigLoader;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.core.store.StoreFactory;
import java.nio.file.Path;
import java.util.Map;

/**
 * A configuration that passed every check that needs no I/O, with the store factory it names. Every
 * command goes through {@link #load}, so {@code validate} and {@code run} give the same verdict.
 */
public record PreparedConfig(DaemonConfig config, StoreFactory storeFactory) {

  public static PreparedConfig load(Path file, Map<String, String> env, StoreModules stores)
      throws ConfigException {
    DaemonConfig config = new ConfigLoader(env, NodeIds.defaultNode(env)).load(file);
    return new PreparedConfig(config, stores.select(config));
  }
}
