package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.store.StoreBackend;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
      "Shows each job: schedule, next firing, current holder, lease expiry, last firing, fence.",
      "Reads the store, so it works from any machine that reaches it."
    })
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  private final CliContext context;

  StatusCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    List<Map<String, Object>> rows;
    try (StoreBackend backend =
        StoreOpener.openOnce(prepared.storeFactory(), prepared.config().store())) {
      StartupTrace.mark("store opened");
      rows = StatusReport.rows(prepared.config(), backend.leaseStore(), Instant.now());
    }
    context
        .out()
        .print(json ? Json.write(rows) + "\n" : TextTable.render(StatusReport.COLUMNS, rows));
    return Cli.OK;
  }
}
