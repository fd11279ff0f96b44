package dev.leasehold.app.cli;

import dev.leasehold.app.config.CheckConfig;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.KeyPaths;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.check.CheckJournal;
import dev.leasehold.core.check.Ping;
import dev.leasehold.core.store.StoreBackend;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ping CHECK [--fail]}: records a ping of a heartbeat check straight in the store, with the
 * file's store settings, so it works without a daemon on this machine (a job on a host that has the
 * file and reaches the store). The daemons see it at their next look at the check.
 */
@Command(
    name = "ping",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Pings a heartbeat check of the file: records the ping in the store, as POST /ping/CHECK",
      "does, without a daemon on this machine. --fail reports a failure instead (one 'failed').",
      "Exit 0 recorded; 1 the store cannot be reached or keeps no journal; 2 unknown check."
    })
final class PingCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Parameters(paramLabel = "CHECK", description = "The check's name.")
  String check;

  @Option(names = "--fail", description = "Report that the job failed.")
  boolean fail;

  private final CliContext context;

  PingCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    Optional<CheckConfig> known = c.check(check);
    if (known.isEmpty()) {
      throw new ConfigException(
          c.file(),
          KeyPaths.CHECKS,
          "unknown check '"
              + check
              + "'; known: "
              + (c.checks().isEmpty()
                  ? "none"
                  : String.join(", ", c.checks().stream().map(CheckConfig::name).toList())));
    }
    context.logging(false, "WARN", true);
    try (StoreBackend backend = StoreOpener.openOnce(prepared.storeFactory(), c.store())) {
      if (backend.journal().isEmpty()) {
        context
            .err()
            .println(
                "leasehold: store type "
                    + c.store().type()
                    + " keeps no journal; the ping was not recorded");
        return Cli.FAILURE;
      }
      Ping ping =
          new CheckJournal(backend.journal().get()).ping(check, fail, context.clock().instant());
      context
          .out()
          .println(
              "check '"
                  + check
                  + "' pinged"
                  + (fail ? " (fail)" : "")
                  + " at "
                  + FireTimes.format(ping.at()));
      return Cli.OK;
    }
  }
}
