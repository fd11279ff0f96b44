package dev.leasehold.app.runner;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a command job: the argv as given, without a shell. The process inherits the daemon's
 * environment but its secrets ({@link InheritedEnvironment}), plus the job's {@code env:} entries,
 * plus {@code LEASEHOLD_JOB}, {@code LEASEHOLD_FIRE_TIME} (ISO-8601 UTC with milliseconds), {@code
 * LEASEHOLD_FENCE} and {@code LEASEHOLD_NODE}. Its stdout and stderr go to the log line by line,
 * tagged with the job, and their last {@value dev.leasehold.core.job.ExecutionRecord#OUTPUT_TAIL}
 * bytes, interleaved in the order they were written ({@link OutputTail}), to the run's history
 * record.
 *
 * <p>The process starts in a session and process group of its own ({@code setsid}), so that a
 * Ctrl-C at the daemon's terminal reaches the daemon (which stops gracefully) and not the job. It
 * also gets {@code LEASEHOLD_RUN_ID}, a marker unique to the run, through which {@link ProcessTree}
 * finds every process the run started, double-forked ones included.
 *
 * <p>When the job must stop (timeout, lease lost, shutdown: the scheduler interrupts this thread
 * and sets the context's stop reason) SIGTERM goes to the run's process group in one signal (the
 * job's own process included), then once to the run's processes outside it; SIGKILL to what is left
 * after the kill grace. When the job's process exits by itself, whatever it left running in the
 * background is stopped the same way before the run counts as finished (and its lease is released).
 * The exit code is reported either way.
 */
public final class CommandJobRunner implements JobRunner {
  private static final Logger log = LoggerFactory.getLogger(CommandJobRunner.class);

  /** How often a waiting runner looks at the stop flag, in case an interrupt was swallowed. */
  private static final long STOP_CHECK_MILLIS = 500;

  /** How long output already written is still copied after the process exits. */
  private static final long DRAIN_MILLIS = 2000;

  private final JobAction.Command command;

  public CommandJobRunner(JobAction.Command command) {
    this.command = command;
    RunSupervisor.get(); // written (or warned about) when the jobs are loaded, not at a first run
  }

  @Override
  public JobResult run(JobContext context) throws IOException {
    ProcessBuilder builder = new ProcessBuilder();
    if (command.workdir() != null) {
      builder.directory(command.workdir().toFile());
    }
    Map<String, String> env = builder.environment();
    InheritedEnvironment.withholdSecrets(env);
    env.putAll(command.env());
    env.put("LEASEHOLD_JOB", context.job());
    env.put("LEASEHOLD_FIRE_TIME", FireTimes.format(context.firing()));
    env.put("LEASEHOLD_FENCE", Long.toString(context.fence()));
    env.put("LEASEHOLD_NODE", context.node());
    context.upstreamFence().ifPresent(f -> env.put("LEASEHOLD_UPSTREAM_FENCE", Long.toString(f)));
    String runId = ProcessTree.newRunId();
    env.put(ProcessTree.RUN_ID, runId);

    String program = command.argv().get(0);
    if (Executables.find(program, env.get("PATH"), builder.directory()) == null) {
      return JobResult.failed("cannot start " + program + ": no such executable");
    }
    Optional<RunSupervisor.Run> supervised =
        RunSupervisor.get().flatMap(s -> s.supervise(context, runId, command.killGrace()));
    builder.command(
        Executables.inNewSession(
            supervised.map(s -> s.wrap(command.argv())).orElse(command.argv())));
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return JobResult.failed("cannot start " + program + ": " + e.getMessage());
    }
    if (supervised.isPresent()) {
      supervised.get().started(process.getOutputStream());
    } else {
      process.getOutputStream().close();
    }
    OutputTail tail = OutputTail.ofDefaultSize();
    OutputLog lines = OutputLog.start(context.job(), 2);
    Thread[] pumps = OutputPump.start(process, context.job(), tail, lines);
    Thread out = pumps[0];
    Thread err = pumps[1];
    log.debug("job {} started pid {}", context.job(), process.pid());

    boolean stopped = awaitExitOrStop(process, context);
    if (stopped) {
      log.info(
          "job {}: stopping process tree of pid {} ({})",
          context.job(),
          process.pid(),
          context.stopReason().map(Enum::name).orElse("interrupted"));
      ProcessTree.terminate(process.toHandle(), runId, command.killGrace(), supervised.isPresent());
    } else {
      stopLeftovers(context, process, runId, supervised.isPresent());
    }
    drain(out);
    drain(err);
    if (!out.isAlive() && !err.isAlive()) {
      drain(lines.thread()); // the last lines reach the log before the run counts as finished
    }
    int code = exitCode(process);
    Optional<String> bySupervisor = supervised.flatMap(RunSupervisor.Run::finish);
    bySupervisor.ifPresent(why -> log.warn("job {}: {}, exit code {}", context.job(), why, code));
    if (stopped) {
      String reason =
          context
              .stopReason()
              .map(r -> r.name().toLowerCase(java.util.Locale.ROOT))
              .orElse("interrupted");
      String detail = "stopped (" + reason + "), exit code " + code;
      return new JobResult(
          Outcome.FAILED,
          code,
          bySupervisor.map(why -> why + "; " + detail).orElse(detail),
          tail.text());
    }
    if (bySupervisor.isPresent()) {
      return new JobResult(
          Outcome.LEASE_LOST, code, bySupervisor.get() + ", exit code " + code, tail.text());
    }
    return JobResult.exit(code).withOutput(tail.text());
  }

  /** Background processes the job left behind would run on unfenced once the lease is released. */
  private void stopLeftovers(
      JobContext context, Process process, String runId, boolean supervised) {
    process.onExit().join();
    Set<ProcessHandle> left = ProcessTree.snapshot(process.toHandle(), runId);
    if (!left.isEmpty()) {
      log.warn(
          "job {}: its process exited but left {} process(es) running; stopping them: {}",
          context.job(),
          left.size(),
          left.stream().map(ProcessHandle::pid).toList());
      ProcessTree.terminate(process.toHandle(), runId, command.killGrace(), supervised);
    }
  }

  /** Waits for the process; true when it had to be stopped instead. */
  private static boolean awaitExitOrStop(Process process, JobContext context) {
    while (true) {
      if (context.stopRequested()) {
        return true;
      }
      try {
        if (process.waitFor(STOP_CHECK_MILLIS, TimeUnit.MILLISECONDS)) {
          return false;
        }
      } catch (InterruptedException e) {
        return true;
      }
    }
  }

  private static int exitCode(Process process) {
    try {
      return process.onExit().get(5, TimeUnit.SECONDS).exitValue();
    } catch (Exception e) {
      return process.isAlive() ? -1 : process.exitValue();
    }
  }

  private static void drain(Thread pump) {
    long deadline = System.nanoTime() + Duration.ofMillis(DRAIN_MILLIS).toNanos();
    while (pump.isAlive() && System.nanoTime() < deadline) {
      try {
        pump.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        // already finishing; keep draining until the deadline
      }
    }
  }
}
