package dev.leasehold.app.cli;

import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
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
 * {@code reset JOB}: the safe way to release a stuck lease, and to put a job right when its lease
 * record was deleted by hand and the store could not restore it. It refuses while a lease is live
 * (unless {@code --force}); else it takes the lease itself ({@code acquire}: never a firing, never
 * the watermark), so the store hands out a fence above every fence it gave before, raises it
 * further if the history knows a higher one, records the reset in the history (outcome {@code
 * reset}, with the fence) and releases the lease. Any old holder that still writes with an older
 * fence is fenced out from then on.
 */
@Command(
    name = "reset",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Releases a job's lease safely and raises its fence above every fence given before, so",
      "that an old holder is fenced out; records 'reset' in the history. Refuses while the lease",
      "is live (a holder renews it) unless --force. Firings already run stay spent.",
      "Exit 0 reset; 1 refused (the lease is live), the store failed, or the job was claimed",
      "meanwhile; 2 unknown job or bad usage."
    })
final class ResetCommand implements Callable<Integer> {
  /** How long the reset holds the lease: only while it records the reset. */
  static final Duration HOLD = Duration.ofSeconds(30);

  /** Acquisitions tried at most to raise a fence counter above the highest in the history. */
  static final int MAX_RAISES = 10_000;

  @Mixin ConfigOption config;

  @Parameters(paramLabel = "JOB", description = "The job name.")
  String job;

  @Option(
      names = "--force",
      description = {
        "Also when the lease is live: the holder's renewals are refused (a pause with",
        "stop-running while the reset waits) and its run is stopped as lease-lost; waits at most",
        "twice the job's TTL for the lease to end."
      })
  boolean force;

  private final CliContext context;

  ResetCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    JobConfig jobConfig = Steering.knownJob(c, job);
    String by = Steering.operator();
    context.logging(false, "WARN", true);
    try (StoreBackend backend = StoreOpener.openForCommand(prepared.storeFactory(), c.store())) {
      CliAudit audit = new CliAudit(backend, context, c, AuditEntry.RESET, job);
      return audit.around(() -> reset(backend, jobConfig, by, audit));
    }
  }

  private int reset(StoreBackend backend, JobConfig jobConfig, String by, CliAudit audit) {
    LeaseStore store = backend.leaseStore();
    Optional<LeaseState> before = store.inspect(job);
    Optional<String> holder = before.flatMap(LeaseState::currentHolder);
    Lease lease;
    if (before.isPresent() && before.get().held() && !force) {
      audit.refused(
          "the lease is live (holder "
              + holder.orElse("unknown")
              + ", fence "
              + before.get().fence()
              + "); nothing was changed");
      context
          .err()
          .println(
              "leasehold: reset refused: the lease of '"
                  + job
                  + "' is live (holder "
                  + holder.orElse("unknown")
                  + ", fence "
                  + before.get().fence()
                  + ", until "
                  + before.get().leaseUntil()
                  + "); nothing was changed. A dead holder's lease ends by then; to stop a"
                  + " live run, stop its daemon or use --force");
      return Cli.FAILURE;
    }
    if (before.isPresent() && before.get().held()) {
      context
          .err()
          .println(
              "leasehold: WARNING: --force: the run of '"
                  + job
                  + "' on "
                  + holder.orElse("an unknown holder")
                  + " is stopped (its renewals are refused) and its lease is taken over;"
                  + " anything it still writes with fence "
                  + before.get().fence()
                  + " or lower is fenced out");
      lease = ForcedReset.takeOver(backend, job, by, ttlOf(jobConfig));
    } else {
      lease = store.acquire(job, by, HOLD).orElse(null);
    }
    if (lease == null) {
      audit.refused("a replica claimed the job meanwhile; nothing was changed");
      context
          .err()
          .println(
              "leasehold: reset of '"
                  + job
                  + "' refused: a replica claimed it meanwhile (the lease is not stuck); nothing"
                  + " was changed");
      return Cli.FAILURE;
    }
    long known = highestInHistory(backend);
    lease = raiseAbove(store, lease, known, by);
    if (lease.fence() <= known) {
      store.release(lease);
      audit.failed("the store gave fence " + lease.fence() + ", not above " + known);
      context
          .err()
          .println(
              "leasehold: reset of '"
                  + job
                  + "' failed: the store gave fence "
                  + lease.fence()
                  + ", not above the "
                  + known
                  + " in the history, after "
                  + MAX_RAISES
                  + " tries");
      return Cli.FAILURE;
    }
    Instant now = context.clock().instant();
    String detail =
        "reset by "
            + by
            + (force ? " with --force" : "")
            + ": lease released, fence raised to "
            + lease.fence()
            + " (before: "
            + before.map(LeaseState::fence).orElse(0L)
            + (known > 0 ? ", highest in the history: " + known : "")
            + ")";
    try {
      backend
          .executionLog()
          .record(
              new ExecutionRecord(
                  job,
                  now,
                  by,
                  lease.fence(),
                  TriggerKind.MANUAL,
                  now,
                  now,
                  Outcome.RESET,
                  null,
                  detail));
    } finally {
      store.release(lease);
    }
    audit.ok(detail);
    context.out().println("job '" + job + "' " + detail);
    context.out().println("firings already run stay spent; the next firing runs as scheduled");
    return Cli.OK;
  }

  private static Duration ttlOf(JobConfig job) {
    return job.ttl() == null ? dev.leasehold.core.scheduler.JobPolicy.DEFAULT_TTL : job.ttl();
  }

  /** The highest fence in the job's recent history; 0 when none or unreadable. */
  private long highestInHistory(StoreBackend backend) {
    try {
      return backend.executionLog().recent(job, 200).stream()
          .mapToLong(ExecutionRecord::fence)
          .max()
          .orElse(0);
    } catch (LeaseStoreException | UnsupportedOperationException e) {
      context.err().println("leasehold: the history cannot be read (" + e.getMessage() + ")");
      return 0;
    }
  }

  /**
   * {@code lease} when its fence is above {@code known}; else acquires again until the store's
   * counter passes it (a store whose fence counter was deleted with the record starts again low;
   * each acquisition raises it by one), at most {@value #MAX_RAISES} times.
   */
  private static Lease raiseAbove(LeaseStore store, Lease lease, long known, String by) {
    Lease current = lease;
    for (int i = 0; i < MAX_RAISES && current.fence() <= known; i++) {
      store.release(current);
      Optional<Lease> next = store.acquire(current.name(), by, HOLD);
      if (next.isEmpty()) {
        throw new LeaseStoreException(
            "reset of " + current.name() + ": a replica took the lease while its fence was raised");
      }
      current = next.get();
    }
    return current;
  }
}
