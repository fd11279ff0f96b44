package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.NodesReport;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.store.StoreBackend;
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
      "Shows each job: schedule, next firing, current holder, lease expiry, last firing, fence;",
      "then the live and stale replicas, and drift between their job sets (not with --json).",
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
    Replicas replicas = null;
    try (StoreBackend backend =
        StoreOpener.openOnce(prepared.storeFactory(), prepared.config().store())) {
      StartupTrace.mark("store opened");
      rows = StatusReport.rows(prepared.config(), backend.leaseStore(), context.clock().instant());
      if (!json && backend.leaseStore().supportsNodes()) {
        replicas = Replicas.of(backend.leaseStore().nodes(), context.clock().instant());
      }
    }
    context
        .out()
        .print(
            json
                ? Json.write(rows) + "\n"
                : TextTable.render(StatusReport.COLUMNS, StatusReport.forTable(rows)));
    if (replicas != null) {
      // the nodes section: the same table as `nodes`, then the plain-words summary
      List<Map<String, Object>> nodes = NodesReport.rows(replicas);
      context.out().println();
      context.out().println("nodes:");
      if (!nodes.isEmpty()) {
        context.out().print(TextTable.render(NodesReport.COLUMNS, NodesReport.forTable(nodes)));
      }
      NodesReport.summary(replicas).forEach(context.out()::println);
    }
    return Cli.OK;
  }
}
