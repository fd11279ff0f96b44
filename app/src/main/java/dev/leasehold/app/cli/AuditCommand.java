package dev.leasehold.app.cli;

import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.audit.AuditTrail;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.store.StoreBackend;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code audit}: the audit trail, newest first: who paused, resumed, triggered, ... what. */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Shows the audit trail, newest first: each pause, resume, trigger, reload, reset, forget",
      "and backfill, refused ones too, with its time, job, result and who did it (user, host",
      "and node from a command line; the kind of token and the client address over HTTP).",
      "Exit 0 shown; 1 the store cannot be reached or keeps no audit trail; 2 bad usage."
    })
final class AuditCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConfigOption config;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "20",
      description = "At most N entries, 1 to 1000 (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  private final CliContext context;

  AuditCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    if (limit < 1 || limit > AuditTrail.MAX_LIMIT) {
      throw new ParameterException(
          spec.commandLine(),
          "--limit must be from 1 to " + AuditTrail.MAX_LIMIT + ", got " + limit);
    }
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    Optional<List<AuditEntry>> entries;
    try (StoreBackend backend =
        StoreOpener.openForCommand(prepared.storeFactory(), prepared.config().store())) {
      entries = AuditTrail.of(backend, context.clock()).recent(limit);
    }
    if (entries.isEmpty()) {
      context
          .err()
          .println("leasehold: " + AuditTrail.unsupported(prepared.config().store().type()));
      return Cli.FAILURE;
    }
    List<Map<String, Object>> rows = entries.get().stream().map(AuditEntry::row).toList();
    context
        .out()
        .print(json ? Json.write(rows) + "\n" : TextTable.render(AuditEntry.TABLE_COLUMNS, rows));
    return Cli.OK;
  }
}
