package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.NodesReport;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.store.StoreBackend;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nodes}: the replicas' node records, live and stale, and drift between job sets. */
@Command(
    name = "nodes",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Lists the daemons that keep a node record in the store: live ones (refreshed within their",
      "expiry) and stale ones (expired recently: stopped, killed or cut off), with version, start,",
      "last refresh, job-set digest and held leases. Flags replicas whose job set differs.",
      "Reads the store, so it works from any machine that reaches it."
    })
final class NodesCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  private final CliContext context;

  NodesCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    Replicas replicas;
    try (StoreBackend backend =
        StoreOpener.openForCommand(prepared.storeFactory(), prepared.config().store())) {
      StartupTrace.mark("store opened");
      Optional<NodeRecords> records = backend.nodeRecords();
      if (records.isEmpty()) {
        context.err().println("error: this store keeps no node records");
        context.err().flush();
        return Cli.FAILURE;
      }
      replicas = Replicas.of(records.get().nodes(), context.clock().instant());
    }
    List<Map<String, Object>> rows = NodesReport.rows(replicas);
    if (json) {
      context.out().print(Json.write(rows) + "\n");
    } else {
      context.out().print(TextTable.render(NodesReport.COLUMNS, NodesReport.forTable(rows)));
      NodesReport.summary(replicas).forEach(context.out()::println);
    }
    return Cli.OK;
  }
}
