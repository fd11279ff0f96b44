package dev.leasehold.app.cli;

import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreBackend;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pause JOB}: pauses the job cluster-wide, in the store. Once this has returned 0, no
 * replica starts a new firing of it: every claim is decided against the pause in its own atomic
 * step.
 */
@Command(
    name = "pause",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Pauses a job on every replica, in the store: once this returns, no replica starts a new",
      "firing of it; each firing that falls while it is paused is recorded once as 'paused'.",
      "A run already going finishes, unless --stop-running. Survives restarts; see 'resume'.",
      "Exit 0 paused; 1 the store cannot be reached or does not keep pauses; 2 unknown job."
    })
final class PauseCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Parameters(paramLabel = "JOB", description = "The job name.")
  String job;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why (shown by status).")
  String reason;

  @Option(
      names = "--stop-running",
      description = "Also stop a run in progress, at its holder's next renewal.")
  boolean stopRunning;

  private final CliContext context;

  PauseCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    Steering.knownJob(c, job);
    String by = Steering.operator();
    String why = reason == null || reason.isBlank() ? null : reason.strip();
    try {
      Pause.check(by, why);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(c.file(), "--reason", e.getMessage());
    }
    context.logging(false, "WARN", true);
    try (StoreBackend backend = StoreOpener.openForCommand(prepared.storeFactory(), c.store())) {
      CliAudit audit = new CliAudit(backend, context, c, AuditEntry.PAUSE, job);
      return audit.around(() -> pause(c, backend, by, why, audit));
    }
  }

  private int pause(DaemonConfig c, StoreBackend backend, String by, String why, CliAudit audit) {
    Optional<Pauses> pauses = backend.pauses();
    if (pauses.isEmpty()) {
      context.err().println(Steering.unsupported(c));
      audit.refused("the store keeps no pauses");
      return Cli.FAILURE;
    }
    Pause pause = pauses.get().pause(job, by, why, stopRunning);
    audit.ok(
        (why == null ? "no reason given" : "reason: " + why)
            + (stopRunning ? "; with --stop-running" : ""));
    String holder =
        backend.leaseStore().inspect(job).flatMap(LeaseState::currentHolder).orElse(null);
    context
        .out()
        .println(
            dev.leasehold.core.store.TerminalText.line(
                "job '" + job + "' " + StatusReport.describe(pause)));
    if (holder != null) {
      context
          .out()
          .println(
              stopRunning
                  ? "a run is going on "
                      + holder
                      + ": it stops at its next renewal (within a third of its TTL)"
                  : "a run is going on "
                      + holder
                      + ": it finishes (use --stop-running to stop it)");
    }
    return Cli.OK;
  }
}
