package dev.leasehold.app.cli;

import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.scheduler.JobPolicy;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code resume JOB [--catch-up]}: ends a pause. By default no firing recorded as paused runs; with
 * {@code --catch-up} the latest of them runs once, on a replica, if it is still within the job's
 * misfire grace when that replica sees the resume.
 */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Ends a job's pause on every replica. The firings recorded as 'paused' stay unrun; the",
      "next firing runs as scheduled. With --catch-up the latest paused firing runs once, on one",
      "replica, if it is still within the job's misfire grace.",
      "Exit 0 resumed (or was not paused); 1 the store cannot be reached; 2 unknown job."
    })
final class ResumeCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Parameters(paramLabel = "JOB", description = "The job name.")
  String job;

  @Option(
      names = "--catch-up",
      description = "Run the latest paused firing if it is still within the misfire grace.")
  boolean catchUp;

  private final CliContext context;

  ResumeCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    JobConfig jobConfig = Steering.knownJob(c, job);
    context.logging(false, "WARN", true);
    try (StoreBackend backend = StoreOpener.openForCommand(prepared.storeFactory(), c.store())) {
      CliAudit audit = new CliAudit(backend, context, c, AuditEntry.RESUME, job);
      return audit.around(() -> resume(c, jobConfig, backend, audit));
    }
  }

  private int resume(DaemonConfig c, JobConfig jobConfig, StoreBackend backend, CliAudit audit) {
    Optional<Pauses> pauses = backend.pauses();
    if (pauses.isEmpty()) {
      context.err().println(Steering.unsupported(c));
      audit.refused("the store keeps no pauses");
      return Cli.FAILURE;
    }
    Optional<LeaseState> before = backend.leaseStore().inspect(job);
    if (!pauses.get().resume(job, catchUp)) {
      audit.ok("was not paused; nothing changed");
      context.out().println("job '" + job + "' was not paused; nothing changed");
      return Cli.OK;
    }
    Instant last = before.map(LeaseState::lastFire).orElse(null);
    StringBuilder line = new StringBuilder("job '" + job + "' resumed");
    if (!catchUp) {
      line.append(": firings recorded as paused are not run; the next firing runs as scheduled");
    } else if (last == null) {
      line.append(": no firing was recorded as paused; the next firing runs as scheduled");
    } else {
      Duration grace =
          jobConfig.misfireGrace() == null
              ? JobPolicy.DEFAULT_MISFIRE_GRACE
              : jobConfig.misfireGrace();
      boolean inGrace = !context.clock().instant().isAfter(last.plus(grace).plusSeconds(1));
      line.append(
          inGrace
              ? ": its latest paused firing "
                  + FireTimes.format(last)
                  + " runs once on a replica if it is still within its misfire grace ("
                  + Durations.format(grace)
                  + ") when the replica sees the resume"
              : ": its latest firing "
                  + FireTimes.format(last)
                  + " is past its misfire grace ("
                  + Durations.format(grace)
                  + "), so nothing is caught up; the next firing runs as scheduled");
    }
    audit.ok(catchUp ? "resumed with --catch-up" : "resumed");
    context.out().println(line);
    return Cli.OK;
  }
}
