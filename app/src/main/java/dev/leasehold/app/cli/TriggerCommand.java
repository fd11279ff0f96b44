package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.app.runner.JobRunners;
import dev.leasehold.app.runner.TaggedJobRunner;
import dev.leasehold.app.wiring.JobDefinitions;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.StoreBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code trigger JOB}: one extra execution now, cluster-wide once. It takes the job's lease with
 * {@code acquire} (never overlapping a scheduled run, never moving the watermark), runs the job in
 * this process, records it as manual, and exits 0 when it succeeded, 1 when it failed or the lease
 * is held elsewhere.
 */
@Command(
    name = "trigger",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs one job once now, in this process, under the job's lease (cluster-wide once).",
      "Exit 0 when it succeeded; 1 when it failed or runs elsewhere right now; 2 unknown job."
    })
final class TriggerCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Parameters(paramLabel = "JOB", description = "The job name.")
  String job;

  private final CliContext context;

  TriggerCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    if (c.job(job).isEmpty()) {
      throw new ConfigException(
          c.file(), "jobs", "unknown job '" + job + "'; known: " + String.join(", ", c.jobNames()));
    }
    context.logging(c.log().json(), c.log().level(), true);
    try (StoreBackend backend = StoreOpener.openOnce(prepared.storeFactory(), c.store());
        Scheduler scheduler =
            Scheduler.builder()
                .node(c.node())
                .store(backend.leaseStore())
                .executionLog(backend.executionLog())
                .jobs(
                    JobDefinitions.from(
                        c, new JobRunners(HttpJobRunner::newClient), TaggedJobRunner::tag))
                .clock(Clock.systemUTC())
                .build()) {
      context.shutdown().onShutdown(() -> scheduler.stop(Duration.ofSeconds(10)));
      Optional<ExecutionRecord> record = scheduler.trigger(job);
      if (record.isEmpty()) {
        String holder =
            backend
                .leaseStore()
                .inspect(job)
                .flatMap(LeaseState::currentHolder)
                .orElse("another node");
        context
            .err()
            .println(
                "leasehold: job '"
                    + job
                    + "' is running elsewhere right now (lease held by "
                    + holder
                    + "); nothing was run");
        return Cli.FAILURE;
      }
      ExecutionRecord r = record.get();
      context
          .out()
          .printf(
              "%s %s on %s, fence %d, %s%s in %d ms%n",
              r.job(),
              FireTimes.format(r.fireTime()),
              r.node(),
              r.fence(),
              r.outcome().label(),
              r.exitCode() == null ? "" : " (exit code " + r.exitCode() + ")",
              Duration.between(r.startedAt(), r.finishedAt()).toMillis());
      if (r.outcome() != Outcome.SUCCEEDED) {
        context
            .err()
            .println(
                "leasehold: job '"
                    + job
                    + "' "
                    + r.outcome().label()
                    + (r.detail() == null ? "" : ": " + Cli.oneLine(r.detail())));
        return Cli.FAILURE;
      }
      return Cli.OK;
    }
  }
}
