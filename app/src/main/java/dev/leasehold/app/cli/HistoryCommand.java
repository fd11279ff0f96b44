package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.report.HistoryReport;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.store.StoreBackend;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
      "Shows recent executions, newest first: firing, node, fence, outcome, end time and",
      "duration; with --output, what each run printed.",
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

  @Option(
      names = "--before",
      paramLabel = "INSTANT",
      description = {
        "Only runs fired strictly before this ISO-8601 instant, e.g. 2026-11-30T18:00:00.000Z:",
        "to page back, pass the oldest fire_time of the previous page."
      })
  String before;

  @Option(names = "--json", description = "A JSON array instead of a table (with the output).")
  boolean json;

  @Option(
      names = "--output",
      description = {
        "Each run with what it said: the tail of a command's stdout and stderr, or an HTTP",
        "job's status line and the start of its body."
      })
  boolean output;

  private final CliContext context;

  HistoryCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    if (output && json) {
      throw new ParameterException(
          spec.commandLine(), "--output and --json do not go together: the JSON has the output");
    }
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    if (job != null && !LeaseNames.isValid(job)) {
      throw new ParameterException(
          spec.commandLine(), "--job '" + job + "' " + LeaseNames.problem(job));
    }
    Instant cursor = null;
    if (before != null) {
      try {
        cursor = Instant.parse(before);
      } catch (DateTimeParseException e) {
        throw new ParameterException(
            spec.commandLine(),
            "--before '"
                + before
                + "' is not an ISO-8601 instant such as 2026-11-30T18:00:00.000Z");
      }
    }
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    List<Map<String, Object>> rows;
    try (StoreBackend backend =
        StoreOpener.openForCommand(prepared.storeFactory(), prepared.config().store())) {
      rows =
          HistoryReport.rows(
              cursor == null
                  ? backend.executionLog().recent(job, limit)
                  : HistoryReport.page(backend.executionLog(), job, cursor, limit));
    }
    String text;
    if (json) {
      text = Json.write(rows) + "\n";
    } else if (output) {
      text = HistoryReport.withOutput(rows);
    } else {
      text = TextTable.render(HistoryReport.TABLE_COLUMNS, rows);
    }
    context.out().print(text);
    return Cli.OK;
  }
}
