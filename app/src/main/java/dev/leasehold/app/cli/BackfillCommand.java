package dev.leasehold.app.cli;

import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.daemon.DaemonModule;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.wiring.JobDefinitions;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.schedule.AfterSchedule;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.scheduler.BackfillRule;
import dev.leasehold.core.scheduler.JobPolicy;
import dev.leasehold.core.scheduler.RequestMarker;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.scheduler.TriggerRequest;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code backfill JOB --from A --to B}: every firing of the job's schedule in [A, B) that has no
 * {@code succeeded} run recorded, once each cluster-wide, oldest first, as requests that live
 * daemons take ({@link TriggerRequest#backfill}); the daemon that takes one decides under the job's
 * lease whether the firing may still run ({@code BackfillRule}, the firing's rows, other backfills
 * of it).
 */
@Command(
    name = "backfill",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs every firing of JOB in [--from, --to) that has not succeeded, once each cluster-wide,",
      "oldest first, on live daemons; LEASEHOLD_FIRE_TIME is each firing's own instant.",
      "Exit 0 when every firing has succeeded; 1 when one failed or was not run; 2 bad range",
      "(from not before to, or more firings than --limit), unknown job or bad option."
    })
final class BackfillCommand implements Callable<Integer> {
  /** Default of {@code --timeout}: how long a daemon may take to start one firing's request. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  /** The most requests {@code --no-wait} writes: the daemons read the newest 200 queue rows. */
  static final int NO_WAIT_MAX = 100;

  @Mixin ConfigOption config;

  @Parameters(paramLabel = "JOB", description = "The job name.")
  String job;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "INSTANT",
      description = "First instant of the range (included), e.g. 2026-11-30T06:00:00Z.")
  String from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "INSTANT",
      description = "End of the range (excluded).")
  String to;

  @Option(
      names = "--max-parallel",
      paramLabel = "N",
      description = "Requests open at once (default 1, at most 100).")
  int maxParallel = 1;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "Refuse a range with more firings than this (default 1000).")
  int limit = 1000;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description = "How long a daemon may take to start each firing's request (default 60s).")
  String timeout;

  @Option(
      names = "--here",
      description = {
        "Run the firings in this process (as node <node>/cli), one at a time, under the job's",
        "lease, with the same checks as a daemon; whether or not a daemon is alive."
      })
  boolean here;

  @Option(
      names = "--no-wait",
      description = "Write the requests (at most 100) and return without waiting for the runs.")
  boolean noWait;

  @Spec CommandSpec spec;

  /** The store's node records, to see a taker die; null until the store is open. */
  private Optional<NodeRecords> records;

  private Instant nextNodeCheck = Instant.MIN;

  private final CliContext context;

  BackfillCommand(CliContext context) {
    this.context = context;
  }

  /** One firing of the range and what became of it. */
  private static final class Firing {
    final Instant at;
    TriggerRequest request;
    String result;
    boolean ok;

    Firing(Instant at) {
      this.at = at;
    }
  }

  @Override
  public Integer call() throws ConfigException {
    Duration open = options();
    Instant a = instant("--from", from);
    Instant b = instant("--to", to);
    if (!a.isBefore(b)) {
      throw new ParameterException(spec.commandLine(), "--from must be before --to");
    }
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    JobConfig jc = Steering.knownJob(c, job);
    if (jc.schedule() instanceof AfterSchedule) {
      throw new ParameterException(
          spec.commandLine(),
          "job '" + job + "' runs after another job and has no firings of its own to backfill");
    }
    List<Instant> instants = firings(jc.schedule(), a, b);
    context.logging(c.log().json(), c.log().level(), true);
    // a run here holds a lease: its store calls keep the daemon's timeout; requests hold none
    StoreSettings store = here ? c.store() : StoreOpener.patient(c.store());
    try (StoreBackend backend = StoreOpener.openOnce(prepared.storeFactory(), store)) {
      CliAudit audit = new CliAudit(backend, context, c, AuditEntry.BACKFILL, job);
      String range = "[" + from + ", " + to + "), " + instants.size() + " firings";
      return audit.around(
          () -> {
            int code = backfill(c, jc, backend, instants, open);
            if (code == Cli.OK) {
              audit.ok(range + (noWait ? ", requested" : ", all succeeded"));
            } else if (code == Cli.USAGE) {
              audit.refused(range);
            } else {
              audit.failed(range + ", not all succeeded");
            }
            return code;
          });
    }
  }

  private Duration options() {
    if (here && noWait) {
      throw new ParameterException(spec.commandLine(), "--here and --no-wait do not go together");
    }
    if (maxParallel < 1 || maxParallel > NO_WAIT_MAX) {
      throw new ParameterException(spec.commandLine(), "--max-parallel must be from 1 to 100");
    }
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1");
    }
    if (timeout == null) {
      return DEFAULT_TIMEOUT;
    }
    try {
      Duration d = Durations.parse(timeout);
      if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofHours(24)) > 0) {
        throw new ParameterException(
            spec.commandLine(), "--timeout must be from 1s to 24h, got " + timeout);
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
    }
  }

  private Instant instant(String option, String text) {
    try {
      return OffsetDateTime.parse(text.strip()).toInstant();
    } catch (DateTimeException e) {
      throw new ParameterException(
          spec.commandLine(), option + ": expected an instant such as 2026-11-30T06:00:00Z");
    }
  }

  /** The schedule's firings in [a, b), at most {@code --limit} (else a usage error). */
  private List<Instant> firings(Schedule schedule, Instant a, Instant b) {
    List<Instant> out = new ArrayList<>();
    Optional<Instant> next = schedule.nextAfter(a.minusMillis(1));
    while (next.isPresent() && next.get().isBefore(b)) {
      if (out.size() == limit) {
        throw new ParameterException(
            spec.commandLine(),
            "more than --limit " + limit + " firings of '" + job + "' in the range");
      }
      out.add(next.get());
      next = schedule.nextAfter(next.get());
    }
    return out;
  }

  private int backfill(
      DaemonConfig c, JobConfig jc, StoreBackend backend, List<Instant> instants, Duration open) {
    // request rows bump the marker that tells the daemons to read the queue
    ExecutionLog history =
        RequestMarker.signaling(
            backend.executionLog(), backend.leaseStore(), backend.requestSignals());
    records = backend.nodeRecords();
    List<ExecutionRecord> known = known(history);
    Set<Instant> succeeded =
        known.stream()
            .filter(r -> r.outcome() == Outcome.SUCCEEDED)
            .map(ExecutionRecord::fireTime)
            .collect(Collectors.toSet());
    Instant watermark = backend.leaseStore().inspect(job).map(LeaseState::lastFire).orElse(null);
    JobPolicy policy = JobDefinitions.policy(jc);
    Instant now = context.clock().instant();
    Instant since = knownSince(c, known, now);
    List<Firing> all = new ArrayList<>();
    Deque<Firing> todo = new ArrayDeque<>();
    for (Instant at : instants) {
      Firing f = new Firing(at);
      all.add(f);
      Optional<String> refusal = BackfillRule.refusal(jc.schedule(), policy, at, watermark, now);
      if (succeeded.contains(at)) {
        done(f, true, "already succeeded");
      } else if (at.isBefore(since)) {
        done(
            f,
            false,
            "not run: older than the history kept for the job (from "
                + show(since)
                + "), so whether it succeeded is unknown");
      } else if (refusal.isPresent()) {
        done(f, false, "not run: " + refusal.get());
      } else {
        todo.add(f);
      }
    }
    if (here) {
      try (Scheduler scheduler = DaemonModule.oneShotScheduler(c, backend, context.clock())) {
        context.shutdown().onShutdown(() -> scheduler.stop(Duration.ofSeconds(10)));
        return finish(all, loop(c, history, todo, open, scheduler));
      }
    }
    if (!todo.isEmpty() && !aDaemonIsAlive(backend)) {
      return Cli.FAILURE;
    }
    if (noWait) {
      if (todo.size() > NO_WAIT_MAX) {
        context
            .err()
            .println(
                "leasehold: --no-wait writes at most "
                    + NO_WAIT_MAX
                    + " requests; narrow the range");
        return Cli.USAGE;
      }
      for (Firing f : todo) {
        request(c, history, f, open);
        context.out().printf("%s %s requested, request %s%n", job, show(f.at), f.request.id());
      }
      context.out().printf("backfill %s: %d firings requested%n", job, todo.size());
      return Cli.OK;
    }
    return finish(all, loop(c, history, todo, open, null));
  }

  /**
   * Requests the firings oldest first, at most {@code --max-parallel} open (one with {@code here},
   * which takes each itself), until each ended; false when interrupted.
   */
  private boolean loop(
      DaemonConfig c, ExecutionLog history, Deque<Firing> todo, Duration open, Scheduler here) {
    List<Firing> inFlight = new ArrayList<>();
    int parallel = here == null ? maxParallel : 1;
    while (!todo.isEmpty() || !inFlight.isEmpty()) {
      while (inFlight.size() < parallel && !todo.isEmpty()) {
        Firing f = todo.removeFirst();
        request(c, history, f, open);
        inFlight.add(f);
      }
      try {
        if (here != null) {
          Firing f = inFlight.get(0);
          Optional<ExecutionRecord> ran = here.takeHere(f.request);
          if (ran.isPresent()) {
            ended(f, ran.get());
            inFlight.remove(f);
          }
        }
        look(history, inFlight);
      } catch (RuntimeException e) {
        // a store that does not answer now (or a lease answered too late): try again
      }
      if (!inFlight.isEmpty()) {
        try {
          Thread.sleep(here == null ? TriggerCommand.POLL.toMillis() : 1000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          context.err().println("leasehold: stopped waiting; open requests stay in the store");
          return false;
        }
      }
    }
    return true;
  }

  private int finish(List<Firing> all, boolean completed) {
    if (!completed) {
      return Cli.FAILURE;
    }
    long ok = all.stream().filter(f -> f.ok).count();
    context
        .out()
        .printf(
            "backfill %s [%s, %s): %d firings, %d succeeded, %d not%n",
            job,
            show(instant("--from", from)),
            show(instant("--to", to)),
            all.size(),
            ok,
            all.size() - ok);
    return ok == all.size() ? Cli.OK : Cli.FAILURE;
  }

  private void request(DaemonConfig c, ExecutionLog history, Firing f, Duration open) {
    f.request =
        TriggerRequest.backfill(
            job, f.at, DaemonModule.cliNode(c), context.clock().instant(), open);
    history.record(f.request.requestRow());
  }

  /** One look at the history for the firings in flight; the ones that ended leave the list. */
  private void look(ExecutionLog history, List<Firing> inFlight) {
    List<ExecutionRecord> rows = history.recent(job, 200);
    List<ExecutionRecord> queue = null;
    Instant now = context.clock().instant();
    for (Iterator<Firing> it = inFlight.iterator(); it.hasNext(); ) {
      Firing f = it.next();
      Optional<ExecutionRecord> run = f.request.runIn(rows);
      if (run.isPresent()) {
        ended(f, run.get());
        it.remove();
      } else if (rows.stream()
          .anyMatch(r -> r.fireTime().equals(f.at) && r.outcome() == Outcome.SUCCEEDED)) {
        done(f, true, "already succeeded (another run)");
        it.remove();
      } else if (now.isAfter(f.request.until().plus(TriggerCommand.TAKE_MARGIN))) {
        if (queue == null) {
          queue = history.recent(TriggerRequest.QUEUE, 200);
        }
        Optional<ExecutionRecord> taken = f.request.takenIn(queue);
        if (taken.isEmpty()) {
          done(f, false, "not run: no daemon took request " + f.request.id() + " in time");
          it.remove();
        } else if (gone(taken.get().node(), now)) {
          done(
              f,
              false,
              "unknown: taken by "
                  + taken.get().node()
                  + ", which is no longer alive; not run again by this request");
          it.remove();
        }
      }
    }
  }

  /** Whether the daemon {@code node} is no longer alive (looked at every 5 s at most). */
  private boolean gone(String node, Instant now) {
    if (records == null || records.isEmpty() || now.isBefore(nextNodeCheck)) {
      return false;
    }
    nextNodeCheck = now.plus(TriggerCommand.NODE_CHECK);
    return Replicas.of(records.get().nodes(), now).live().stream()
        .noneMatch(n -> n.nodeId().equals(node));
  }

  private void ended(Firing f, ExecutionRecord r) {
    done(
        f,
        r.outcome() == Outcome.SUCCEEDED,
        r.outcome().label()
            + " on "
            + r.node()
            + ", fence "
            + r.fence()
            + (r.exitCode() == null ? "" : " (exit code " + r.exitCode() + ")"));
  }

  private void done(Firing f, boolean ok, String result) {
    f.ok = ok;
    f.result = result;
    context.out().printf("%s %s %s%n", job, show(f.at), result);
    context.out().flush();
  }

  private boolean aDaemonIsAlive(StoreBackend backend) {
    Optional<NodeRecords> records = backend.nodeRecords();
    if (records.isPresent()
        && Replicas.of(records.get().nodes(), context.clock().instant()).live().isEmpty()) {
      context
          .err()
          .println(
              "leasehold: no daemon is alive (no live node record in the store, see 'leasehold"
                  + " nodes'); nothing was requested");
      return false;
    }
    return true;
  }

  /**
   * The job's newest rows, as far back as the history reaches ({@link ExecutionLog#BEFORE_WINDOW}
   * rows at most): what the command and the daemons can know of a firing's outcome.
   */
  private List<ExecutionRecord> known(ExecutionLog history) {
    return history.recent(job, ExecutionLog.BEFORE_WINDOW);
  }

  /**
   * The oldest firing whose outcome the history still tells: {@code store.history.keep} back, and
   * when the rows read are as many as the history keeps per job (or as {@link #known} reads), the
   * oldest firing among them.
   */
  private static Instant knownSince(DaemonConfig c, List<ExecutionRecord> rows, Instant now) {
    Instant since = now.minus(c.history().keep());
    int full = Math.min(ExecutionLog.BEFORE_WINDOW, c.history().maxPerJob());
    if (rows.size() >= full) {
      Instant oldest =
          rows.stream().map(ExecutionRecord::fireTime).min(Instant::compareTo).orElse(since);
      since = oldest.isAfter(since) ? oldest : since;
    }
    return since;
  }

  private static String show(Instant at) {
    return FireTimes.format(at);
  }
}
