package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.logging.LogSetup;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What every command needs from the outside world, injected so tests drive the real entry point
 * with their own environment, streams and shutdown signal.
 *
 * @param env the environment (placeholders, the default node id)
 * @param out standard output: the command's answer
 * @param err standard error: one-line errors
 * @param stores the store adapters on the classpath
 * @param shutdown how {@code run} learns of SIGTERM/SIGINT
 * @param configureLogging whether commands set up Logback (the real {@code main} does; tests keep
 *     their own logging)
 * @param clock the wall clock every command reads "now" from (status ages, node liveness, the
 *     trigger's scheduler); {@code Main} passes the system clock
 */
public record CliContext(
    Map<String, String> env,
    PrintWriter out,
    PrintWriter err,
    Supplier<StoreModules> stores,
    ShutdownSignal shutdown,
    boolean configureLogging,
    Clock clock) {

  PreparedConfig prepare(Path file) throws ConfigException {
    StartupTrace.mark("command parsed");
    PreparedConfig prepared = PreparedConfig.load(file, env, stores.get());
    StartupTrace.mark("config loaded");
    return prepared;
  }

  void logging(boolean json, String level, boolean toStderr) {
    if (configureLogging) {
      LogSetup.configure(json, level, toStderr);
    }
  }
}
