package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.wiring.PreparedConfig;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code run}: schedules every job until SIGTERM/SIGINT; SIGHUP reloads the file. A bad
 * configuration exits 2 before anything starts; a store that is down never ends it (it retries with
 * capped backoff).
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Schedules the jobs until SIGTERM/SIGINT, then stops gracefully (shutdown-grace).",
      "SIGHUP reads the file again and applies its jobs (a bad file changes nothing).",
      "Run one on every replica with the same file; each firing runs once."
    })
final class RunCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  private final CliContext context;
  private final Consumer<Daemon> onStart;

  RunCommand(CliContext context) {
    this(context, d -> {});
  }

  RunCommand(CliContext context, Consumer<Daemon> onStart) {
    this.context = context;
    this.onStart = onStart;
  }

  @Override
  public Integer call() throws ConfigException, IOException {
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    context.logging(c.log().json(), c.log().level(), false);
    Daemon daemon = new Daemon(prepared, () -> context.prepare(config.file), context.clock());
    context.shutdown().onShutdown(daemon::shutdown);
    context.shutdown().onReload(daemon::reload);
    onStart.accept(daemon);
    return daemon.run();
  }
}
