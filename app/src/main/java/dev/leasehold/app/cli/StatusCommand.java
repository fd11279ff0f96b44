package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.store.StoreBackend;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code status}: every job's schedule, next firing, holder, lease expiry, last firing, fence. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Shows each job: schedule, next firing, current holder, lease expiry, last firing, fence;",
      "then the live and stale replicas, and drift between their job sets (not with --json).",
      "Reads the store, so it works from any machine that reaches it; on the machine of a daemon",
      "of the same file (admin endpoint on loopback), that daemon answers instead (same output)."
    })
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  @Option(
      names = "--from-store",
      description =
          "Read the store even when a daemon of this file answers on its loopback admin endpoint.")
  boolean fromStore;

  private final CliContext context;

  StatusCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    if (!fromStore) {
      Optional<String> answered = LocalDaemon.status(prepared.config(), json);
      if (answered.isPresent()) {
        StartupTrace.mark("a local daemon answered");
        context.out().print(answered.get());
        return Cli.OK;
      }
    }
    String text;
    try (StoreBackend backend =
        StoreOpener.openForCommand(prepared.storeFactory(), prepared.config().store())) {
      StartupTrace.mark("store opened");
      text = StatusReport.render(prepared.config(), backend, context.clock().instant(), json);
    }
    context.out().print(text);
    return Cli.OK;
  }
}
