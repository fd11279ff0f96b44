package dev.leasehold.app.cli;

import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.daemon.DaemonModule;
import dev.leasehold.app.report.HistoryReport;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.scheduler.RequestMarker;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.scheduler.TriggerRequest;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trigger JOB}: one extra execution now, cluster-wide once.
 *
 * <p>By default the running cluster runs it: the command writes a request into the store's history
 * ({@link TriggerRequest}), one live daemon that has the job takes it under the job's lease and
 * runs it, and the command waits for the run's row and exits with its outcome (0 succeeded, 1
 * otherwise). It exits 1 at once when no daemon is alive, and after {@code --timeout} plus a few
 * seconds when no daemon took the request. {@code --no-wait} returns once the request is written.
 *
 * <p>{@code --here} runs the job in this process as before: it takes the job's lease with {@code
 * acquire} (never overlapping a scheduled run, never moving the watermark), records the run as
 * manual under the node name {@code <node>/cli}, and exits 1 when the lease is held elsewhere.
 */
@Command(
    name = "trigger",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs one job once now, cluster-wide once: a live daemon that has the job takes the request",
      "through the store and runs it under the job's lease; this command waits for the outcome.",
      "Exit 0 when it succeeded; 1 when it failed, no daemon is alive, nobody took the request in",
      "time (or, with --here, it runs elsewhere right now); 2 unknown job or bad option."
    })
final class TriggerCommand implements Callable<Integer> {
  /** Seconds the command waits past the request's end for a taken row written just before it. */
  static final Duration TAKE_MARGIN = Duration.ofSeconds(3);

  /** Pause between two reads of the history while waiting. */
  static final Duration POLL = Duration.ofMillis(250);

  /** Pause between two looks at the taking replica's node record. */
  static final Duration NODE_CHECK = Duration.ofSeconds(5);

  /** Default of {@code --timeout}. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  @Mixin ConfigOption config;

  @Parameters(paramLabel = "JOB", description = "The job name.")
  String job;

  @Option(
      names = "--here",
      description = {
        "Run the job in this process instead (under the job's lease, as node <node>/cli),",
        "whether or not a daemon is alive."
      })
  boolean here;

  @Option(
      names = "--no-wait",
      description = "Return once the request is written (exit 0), without waiting for the run.")
  boolean noWait;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description = {
        "How long a daemon may take to start the request (default 60s; 1s to 24h). No daemon",
        "starts it later; the command then exits 1. The run itself is waited for to its end."
      })
  String timeout;

  @Option(names = "--json", description = "The run's history row (or the request) as JSON.")
  boolean json;

  @Spec CommandSpec spec;

  private final CliContext context;

  TriggerCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    Duration open = options();
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    Steering.knownJob(c, job);
    context.logging(c.log().json(), c.log().level(), true);
    // a run here holds a lease: its store calls keep the daemon's timeout; a request holds none
    StoreSettings store = here ? c.store() : StoreOpener.patient(c.store());
    try (StoreBackend backend = StoreOpener.openOnce(prepared.storeFactory(), store)) {
      CliAudit audit = new CliAudit(backend, context, c, AuditEntry.TRIGGER, job);
      return audit.around(
          () -> here ? runHere(c, backend, audit) : request(c, backend, open, audit));
    }
  }

  private Duration options() {
    if (here && noWait) {
      throw new ParameterException(spec.commandLine(), "--here and --no-wait do not go together");
    }
    if (here && timeout != null) {
      throw new ParameterException(spec.commandLine(), "--here and --timeout do not go together");
    }
    if (timeout == null) {
      return DEFAULT_TIMEOUT;
    }
    Duration d;
    try {
      d = Durations.parse(timeout);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofHours(24)) > 0) {
      throw new ParameterException(
          spec.commandLine(), "--timeout must be from 1s to 24h, got " + timeout);
    }
    return d;
  }

  /** {@code --here}: the job in this process, under its lease. */
  private int runHere(DaemonConfig c, StoreBackend backend, CliAudit audit) {
    try (Scheduler scheduler = DaemonModule.oneShotScheduler(c, backend, context.clock())) {
      context.shutdown().onShutdown(() -> scheduler.stop(Duration.ofSeconds(10)));
      Optional<ExecutionRecord> record = scheduler.trigger(job);
      if (record.isEmpty()) {
        String holder =
            backend
                .leaseStore()
                .inspect(job)
                .flatMap(LeaseState::currentHolder)
                .orElse("another node");
        audit.refused("running elsewhere (lease held by " + holder + "); nothing was run");
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
      audit.ok("ran here as " + r.node() + ", fence " + r.fence() + ": " + r.outcome().label());
      return outcome(r);
    }
  }

  /** The default: a request through the store, taken by a live daemon. */
  private int request(DaemonConfig c, StoreBackend backend, Duration open, CliAudit audit) {
    Optional<NodeRecords> records = backend.nodeRecords();
    List<String> live = null; // null: this store keeps no node records
    if (records.isPresent()) {
      live =
          Replicas.of(records.get().nodes(), context.clock().instant()).live().stream()
              .map(NodeRecord::nodeId)
              .toList();
      if (live.isEmpty()) {
        audit.refused("no daemon is alive; nothing was requested");
        context
            .err()
            .println(
                "leasehold: no daemon is alive (no live node record in the store, see 'leasehold"
                    + " nodes'); nothing was requested. 'trigger --here' runs the job in this"
                    + " process");
        return Cli.FAILURE;
      }
    }
    TriggerRequest request =
        TriggerRequest.create(job, DaemonModule.cliNode(c), context.clock().instant(), open);
    // the row, then the marker that tells the daemons to read the queue
    RequestMarker.signaling(backend.executionLog(), backend.leaseStore(), backend.requestSignals())
        .record(request.requestRow());
    audit.ok(
        "requested: request " + request.id() + ", open until " + FireTimes.format(request.until()));
    audit.record();
    if (noWait) {
      if (json) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("job", job);
        row.put("request", request.id());
        row.put("requested_at", FireTimes.format(request.at()));
        row.put("until", FireTimes.format(request.until()));
        row.put("by", request.by());
        row.put("live", live);
        context.out().print(Json.write(row) + "\n");
      } else {
        context
            .out()
            .printf(
                "%s requested at %s, request %s, open until %s%n",
                job,
                FireTimes.format(request.at()),
                request.id(),
                FireTimes.format(request.until()));
      }
      return Cli.OK;
    }
    return await(backend, request, open, live);
  }

  private void sayTaken(TriggerRequest request, ExecutionRecord taken) {
    context
        .err()
        .printf(
            "leasehold: request %s of job '%s' taken by %s (fence %d); waiting for its outcome%n",
            request.id(), job, taken.node(), taken.fence());
    context.err().flush();
  }

  private int await(
      StoreBackend backend, TriggerRequest request, Duration open, List<String> live) {
    ExecutionLog history = backend.executionLog();
    Optional<NodeRecords> records = backend.nodeRecords();
    Instant takeBy = request.until().plus(TAKE_MARGIN);
    ExecutionRecord taken = null;
    Instant nextNodeCheck = null;
    while (true) {
      Instant now = context.clock().instant();
      try {
        Optional<ExecutionRecord> run = request.runIn(history.recent(job, 50));
        if (run.isPresent()) {
          if (taken == null) {
            // a run quicker than one poll: still say who took it, as a slower one does
            request
                .takenIn(history.recent(TriggerRequest.QUEUE, 200))
                .ifPresent(t -> sayTaken(request, t));
          }
          return outcome(run.get());
        }
        if (taken == null) {
          taken = request.takenIn(history.recent(TriggerRequest.QUEUE, 200)).orElse(null);
          if (taken != null) {
            sayTaken(request, taken);
            nextNodeCheck = now.plus(NODE_CHECK);
          } else if (now.isAfter(takeBy)) {
            context
                .err()
                .println(
                    "leasehold: no daemon took request "
                        + request.id()
                        + " of job '"
                        + job
                        + "' within "
                        + Durations.format(open)
                        + (live == null ? "" : " (live daemons: " + String.join(", ", live) + ")")
                        + "; nothing ran, and none will start it now. Is the job in their"
                        + " configuration, and its lease free ('leasehold status')?");
            return Cli.FAILURE;
          }
        } else if (records.isPresent() && !now.isBefore(nextNodeCheck)) {
          nextNodeCheck = now.plus(NODE_CHECK);
          String node = taken.node();
          boolean alive =
              Replicas.of(records.get().nodes(), now).live().stream()
                  .anyMatch(n -> n.nodeId().equals(node));
          if (!alive && request.runIn(history.recent(job, 50)).isEmpty()) {
            context
                .err()
                .println(
                    "leasehold: daemon "
                        + node
                        + " took request "
                        + request.id()
                        + " of job '"
                        + job
                        + "' and is no longer alive (its node record is stale); the outcome is"
                        + " unknown and the request is not run again ('leasehold history --job "
                        + job
                        + "' shows a row if one comes)");
            return Cli.FAILURE;
          }
        }
      } catch (RuntimeException e) {
        if (taken == null && now.isAfter(takeBy)) {
          throw e;
        }
        // a store that does not answer now: read again at the next poll
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        context
            .err()
            .println("leasehold: stopped waiting; request " + request.id() + " stays in the store");
        return Cli.FAILURE;
      }
    }
  }

  /** Prints the run's row; 0 when it succeeded, else 1. */
  private int outcome(ExecutionRecord r) {
    if (json) {
      context.out().print(Json.write(HistoryReport.rows(List.of(r)).get(0)) + "\n");
    } else {
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
    }
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
