package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.report.HistoryReport;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.store.StoreBackend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code history}: the most recent executions, newest first. */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Shows recent executions, newest first: firing, node, fence, outcome, times.",
      "Reads the store, so it works from any machine that reaches it."
    })
final class HistoryCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConfigOption config;

  @Option(names = "--job", paramLabel = "NAME", description = "Only this job.")
  String job;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "20",
      description = "At most N executions (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  private final CliContext context;

  HistoryCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    if (job != null && !LeaseNames.isValid(job)) {
      throw new ParameterException(
          spec.commandLine(), "--job '" + job + "' " + LeaseNames.problem(job));
    }
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    List<Map<String, Object>> rows;
    try (StoreBackend backend =
        StoreOpener.openOnce(prepared.storeFactory(), prepared.config().store())) {
      rows = HistoryReport.rows(backend.executionLog().recent(job, limit));
    }
    context
        .out()
        .print(
            json ? Json.write(rows) + "\n" : TextTable.render(HistoryReport.TABLE_COLUMNS, rows));
    return Cli.OK;
  }
}
