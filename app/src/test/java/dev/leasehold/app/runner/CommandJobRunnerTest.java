package dev.leasehold.app.runner;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.store.Redaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class CommandJobRunnerTest {
  private static final Duration LIMIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final ListAppender<ILoggingEvent> output = new ListAppender<>();
  private final Logger outputLogger = (Logger) LoggerFactory.getLogger("leasehold.job");

  @BeforeEach
  void captureJobOutput() {
    output.start();
    outputLogger.addAppender(output);
  }

  @AfterEach
  void release() {
    outputLogger.detachAppender(output);
  }

  private static CommandJobRunner runner(List<String> argv, Map<String, String> env, Path workdir) {
    return new CommandJobRunner(new JobAction.Command(argv, env, workdir, Duration.ofMillis(500)));
  }

  private static CommandJobRunner sh(String script) {
    return runner(List.of("sh", "-c", script), Map.of(), null);
  }

  @Test
  void theProcessSeesTheLeaseholdVariablesItsOwnEnvAndTheInheritedEnvironment() throws Exception {
    Path out = dir.resolve("env.txt");
    CommandJobRunner runner =
        runner(
            List.of(
                "sh",
                "-c",
                "printf '%s|%s|%s|%s|%s|%s' \"$LEASEHOLD_JOB\" \"$LEASEHOLD_FIRE_TIME\""
                    + " \"$LEASEHOLD_FENCE\" \"$LEASEHOLD_NODE\" \"$FAMILY\" \"$PATH\" > \"$OUT\""),
            Map.of("FAMILY", "li", "OUT", out.toString()),
            null);

    JobResult result = runner.run(JobContexts.of("morning-digest", 42));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(result.exitCode()).isZero();
    assertThat(Files.readString(out))
        .isEqualTo("morning-digest|2026-11-30T06:30:00.000Z|42|node-a|li|" + System.getenv("PATH"));
  }

  @Test
  void theResultKeepsStdoutAndStderrWithStderrMarked() throws Exception {
    JobResult result =
        sh("echo one; sleep 0.2; echo boom >&2; sleep 0.2; echo three; exit 3")
            .run(JobContexts.of("said", 1));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    // the two streams interleaved in the order the lines were written
    assertThat(result.output().lines())
        .containsExactlyInAnyOrder("one", "[stderr] boom", "three")
        .containsExactly("one", "[stderr] boom", "three")
        .filteredOn(l -> !l.startsWith("[stderr]"))
        .containsExactly("one", "three");
    assertThat(sh("true").run(JobContexts.of("quiet", 1)).output()).as("nothing printed").isNull();
  }

  @Test
  void anErrorWrittenToStderrAfterABacklogOfStdoutIsTheLastLineKept() throws Exception {
    // 25 KB to stdout, then the error to stderr: the stdout backlog is still being read when the
    // error line arrives, and the tail (4 KB) must end with the error as it was written
    for (int run = 1; run <= 3; run++) {
      JobResult result =
          sh("i=0; while [ $i -lt 500 ]; do"
                  + " echo \"filler $i ........................................\"; i=$((i+1));"
                  + " done; echo \"boom: disk full, attempt "
                  + run
                  + "\" >&2; exit 3")
              .run(JobContexts.of("backlog", 1));

      List<String> lines = result.output().lines().toList();
      assertThat(lines.get(lines.size() - 1))
          .as("run %d", run)
          .isEqualTo("[stderr] boom: disk full, attempt " + run);
      assertThat(lines.get(lines.size() - 2)).as("run %d", run).startsWith("filler 499 ");
    }
  }

  @Test
  void onlyTheTailOfALongOutputIsKeptAndSecretsAreScrubbedFromIt() throws Exception {
    Redaction.register("Hunter2Secret");
    JobResult result =
        sh("i=0; while [ $i -lt 2000 ]; do echo \"line $i\"; i=$((i+1)); done;"
                + " echo 'password is Hunter2Secret'")
            .run(JobContexts.of("chatty", 1));

    String kept = result.output();
    assertThat(kept).startsWith("[").contains("earlier bytes not kept]\n");
    assertThat(kept).endsWith("\nline 1999\npassword is ***").doesNotContain("Hunter2Secret");
    String lines = kept.substring(kept.indexOf('\n') + 1);
    assertThat(lines.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(ExecutionRecord.OUTPUT_TAIL)
        .isGreaterThan(ExecutionRecord.OUTPUT_TAIL - 20);
  }

  @Test
  void stdoutAndStderrGoToTheLogLineByLineTaggedWithTheJob() throws Exception {
    sh("echo one; echo two >&2; echo three").run(JobContexts.of("tagged", 1));

    assertThat(output.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .contains("one", "[stderr] two", "three");
    assertThat(output.list)
        .allSatisfy(e -> assertThat(e.getMDCPropertyMap()).containsEntry("job", "tagged"));
  }

  @Test
  void aLineLongerThanTheCapIsCutAndTheRestDroppedWithAMarker() throws Exception {
    // 3,000,000 bytes without a newline, then a normal line
    sh("head -c 3000000 /dev/zero | tr '\\0' x; echo; echo after").run(JobContexts.of("long", 1));

    List<String> lines = output.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .startsWith("x".repeat(OutputPump.MAX_LINE) + " [")
        .endsWith("[" + (3_000_000 - OutputPump.MAX_LINE) + " more bytes of this line dropped]");
    assertThat(lines.get(1)).isEqualTo("after");
  }

  @Test
  void theExitCodeDecidesTheOutcome() throws Exception {
    JobResult failed = sh("exit 3").run(JobContexts.of("fails", 1));
    JobResult ok = sh("exit 0").run(JobContexts.of("works", 1));

    assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(failed.exitCode()).isEqualTo(3);
    assertThat(ok.outcome()).isEqualTo(Outcome.SUCCEEDED);
  }

  @Test
  void theCommandRunsInItsWorkdirWithoutAShell() throws Exception {
    Path out = dir.resolve("argv.txt");
    // "$HOME" would be expanded by a shell; as a plain argv entry it arrives as written
    runner(
            List.of(
                "sh", "-c", "pwd > \"$0\"; printf '%s' \"$1\" >> \"$0\"", out.toString(), "$HOME"),
            Map.of(),
            dir)
        .run(JobContexts.of("argv", 1));

    assertThat(Files.readString(out)).isEqualTo(dir.toRealPath() + "\n" + "$HOME");
  }

  @Test
  void aProgramThatCannotStartIsAFailureNotAnException() throws Exception {
    JobResult result =
        runner(List.of(dir.resolve("no-such-program").toString()), Map.of(), null)
            .run(JobContexts.of("missing", 1));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("cannot start");
  }

  @Test
  void aStopRequestTerminatesTheWholeProcessTreeIncludingGrandchildren() throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    CommandJobRunner runner = sh("sleep 1000 & echo $! > '" + pidFile + "'; wait");

    StoppedRun run = startAndStop(runner, pidFile, StopReason.TIMED_OUT);

    assertThat(run.result.exitCode()).isEqualTo(143); // 128 + SIGTERM
    assertThat(run.result.detail()).contains("timed_out");
    Poll.until("the grandchild sleep is gone", LIMIT, () -> gone(run.grandchild));
  }

  @Test
  void aStoppedScriptsOwnTermTrapRunsAndItsNextLineDoesNot() throws Exception {
    stopABackupScript(JobContexts.of("backup", 7));
  }

  @Test
  void aStoppedScriptsOwnTermTrapRunsAlsoWithoutTheSupervisor() throws Exception {
    stopABackupScript(JobContexts.unsupervised("backup", 7));
  }

  private void stopABackupScript(JobContext context) throws Exception {
    Path pidFile = dir.resolve("sleep.pid");
    Path trapped = dir.resolve("trapped");
    Path after = dir.resolve("after");
    // a backup script: if only its copy were signalled, wait would return and "mark success" run
    CommandJobRunner runner =
        sh(
            "trap 'echo trapped >> \""
                + trapped
                + "\"; exit 143' TERM; sleep 30 & echo $! > '"
                + pidFile
                + "'; wait $!; echo success > '"
                + after
                + "'");

    StoppedRun run = startAndStop(runner, context, pidFile, StopReason.LEASE_LOST);

    assertThat(run.result.exitCode()).isEqualTo(143);
    assertThat(trapped).hasContent("trapped");
    assertThat(after).doesNotExist();
    Poll.until("the sleep is gone", LIMIT, () -> gone(run.grandchild));
  }

  @Test
  void aTermTrapThatTakesItsTimeFinishesWithinTheGrace() throws Exception {
    Path pidFile = dir.resolve("sleep.pid");
    Path trapped = dir.resolve("trapped");
    // the trap cleans up for a while, then exits 3: its own exit code is what is recorded
    CommandJobRunner runner =
        runner(
            List.of(
                "bash",
                "-c",
                "trap 'sleep 0.2; echo done > \"$OUT\"; exit 3' TERM; sleep 30 & echo $! > '"
                    + pidFile
                    + "'; wait $!"),
            Map.of("OUT", trapped.toString()),
            null);

    StoppedRun run = startAndStop(runner, pidFile, StopReason.SHUTDOWN);

    assertThat(run.result.exitCode()).isEqualTo(3);
    assertThat(trapped).hasContent("done");
  }

  @Test
  void aTreeThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    // an ignored signal stays ignored in children: both shell and sleep shrug off SIGTERM
    CommandJobRunner runner =
        sh("trap '' TERM; sleep 1000 & echo $! > '" + pidFile + "'; while :; do sleep 1; done");

    StoppedRun run = startAndStop(runner, pidFile, StopReason.LEASE_LOST);

    assertThat(run.result.exitCode()).isEqualTo(137); // 128 + SIGKILL
    Poll.until("the grandchild sleep is gone", LIMIT, () -> gone(run.grandchild));
  }

  @Test
  void theJobRunsInASessionAndProcessGroupOfItsOwn() throws Exception {
    Path ids = dir.resolve("ids.txt");
    // /proc/PID/stat fields 5 and 6: process group and session
    CommandJobRunner runner = sh("echo $$ $PPID $(cut -d' ' -f5,6 /proc/$$/stat) > '" + ids + "'");

    // unsupervised, the job leads them itself
    runner.run(JobContexts.unsupervised("own", 1));
    String[] f = Files.readString(ids).strip().split(" ");
    assertThat(f[2]).as("process group").isEqualTo(f[0]);
    assertThat(f[3]).as("session").isEqualTo(f[0]);

    // supervised, its supervisor (its parent) leads them
    runner.run(JobContexts.of("own", 1));
    f = Files.readString(ids).strip().split(" ");
    assertThat(f[1]).as("parent").isNotEqualTo(Long.toString(ProcessHandle.current().pid()));
    assertThat(f[2]).as("process group").isEqualTo(f[1]);
    assertThat(f[3]).as("session").isEqualTo(f[1]);
  }

  @Test
  void aDoubleForkedSetsidDescendantIgnoringSigtermDiesWhenTheJobExits() throws Exception {
    Path pidFile = dir.resolve("escapee.pid");
    // the subshell forks setsid+sleep and exits: sleep is re-parented, in a session of its own,
    // and ignores SIGTERM (an ignored signal stays ignored across fork and exec)
    JobResult result =
        sh("trap '' TERM; (setsid sleep 1000 & echo $! > '" + pidFile + "'); exit 0")
            .run(JobContexts.of("leaves-a-daemon", 1));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    long escapee = readPid(pidFile);
    assertThat(escapee).isPositive();
    Poll.until("the double-forked sleep " + escapee + " is gone", LIMIT, () -> gone(escapee));
  }

  @Test
  void aTimeoutAlsoStopsADoubleForkedSetsidDescendantIgnoringSigterm() throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    CommandJobRunner runner =
        sh(
            "trap '' TERM; (setsid sleep 1000 & echo $! > '"
                + pidFile
                + "'); while :; do sleep 1; done");

    StoppedRun run = startAndStop(runner, pidFile, StopReason.TIMED_OUT);

    Poll.until("the double-forked sleep is gone", LIMIT, () -> gone(run.grandchild));
  }

  @Test
  void aZombieIsNotReportedAsHavingIgnoredSigterm() throws Exception {
    Logger treeLogger = (Logger) LoggerFactory.getLogger(ProcessTree.class);
    ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    warnings.start();
    treeLogger.addAppender(warnings);
    Path pidFile = dir.resolve("job.pid");
    try {
      // sleep 1000 (the job's own pid after exec) ignores SIGTERM and never reaps its child,
      // which exits at once and stays a zombie until sleep 1000 dies
      CommandJobRunner runner =
          sh("trap '' TERM; echo $$ > '" + pidFile + "'; true & exec sleep 1000");
      StoppedRun run = startAndStop(runner, pidFile, StopReason.TIMED_OUT);

      assertThat(warnings.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(m -> m.contains("ignored SIGTERM"))
          .containsExactly(
              "1 process(es) ignored SIGTERM for 500 ms and were killed: [" + run.grandchild + "]");
    } finally {
      treeLogger.detachAppender(warnings);
    }
  }

  // --- the supervisor: the lease's deadline enforced outside the JVM ---------------------------

  /** A context whose lease stays valid for {@code millis} after each {@link Lease#renew}. */
  private static final class Lease {
    final JobContext context = JobContexts.unsupervised("supervised", 9);
    private final long millis;
    private volatile long until;

    Lease(long millis) {
      this.millis = millis;
      this.until = System.nanoTime() + millis * 1_000_000;
      context.leaseValidity(() -> (until - System.nanoTime()) / 1_000_000);
    }

    void renew() {
      until = System.nanoTime() + millis * 1_000_000;
      context.leaseRenewed();
    }
  }

  @Test
  void aJobWhoseLeaseIsNotRenewedIsStoppedByItsSupervisorAtTheDeadline() throws Exception {
    Path trapped = dir.resolve("trapped");
    Path pidFile = dir.resolve("sleep.pid");
    Lease lease = new Lease(1500); // never renewed, and nobody asks the runner to stop
    JobResult result =
        sh("trap 'echo trapped >> \""
                + trapped
                + "\"; exit 143' TERM; sleep 30 & echo $! > '"
                + pidFile
                + "'; wait $!; echo went on")
            .run(lease.context);

    assertThat(result.outcome()).isEqualTo(Outcome.LEASE_LOST);
    assertThat(result.exitCode()).isEqualTo(143);
    assertThat(result.detail())
        .isEqualTo(
            "stopped by its supervisor at the lease deadline: the daemon did not renew the lease"
                + " in time (paused or starved), exit code 143");
    assertThat(trapped).hasContent("trapped");
    assertThat(output.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .doesNotContain("went on");
    Poll.until("the sleep is gone", LIMIT, () -> gone(readPid(pidFile)));
  }

  @Test
  void theSupervisorKillsWhatIgnoresSigtermDoubleForkedEscapeesIncluded() throws Exception {
    Path pidFile = dir.resolve("escapee.pid");
    Lease lease = new Lease(1000);
    JobResult result =
        sh("trap '' TERM; (setsid sleep 1000 & echo $! > '"
                + pidFile
                + "'); while :; do sleep 1; done")
            .run(lease.context);

    assertThat(result.outcome()).isEqualTo(Outcome.LEASE_LOST);
    assertThat(result.exitCode()).isEqualTo(137);
    long escapee = readPid(pidFile);
    assertThat(escapee).isPositive();
    Poll.until("the double-forked sleep " + escapee + " is gone", LIMIT, () -> gone(escapee));
  }

  @Test
  void renewalsKeepASupervisedJobRunningPastItsFirstDeadline() throws Exception {
    Lease lease = new Lease(600);
    ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
    try {
      renewer.scheduleAtFixedRate(lease::renew, 150, 150, TimeUnit.MILLISECONDS);
      JobResult result = sh("sleep 2; exit 0").run(lease.context);

      assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
      assertThat(result.detail()).isNull();
    } finally {
      renewer.shutdownNow();
    }
  }

  @Test
  void whenTheDaemonsPipeClosesTheSupervisorStopsTheJobAndSaysWhy() throws Exception {
    Path pidFile = dir.resolve("sleep.pid");
    Path trapped = dir.resolve("trapped");
    Lease lease = new Lease(3_600_000);
    String runId = ProcessTree.newRunId();
    RunSupervisor.Run run =
        RunSupervisor.get()
            .orElseThrow()
            .supervise(lease.context, runId, Duration.ofMillis(500))
            .orElseThrow();
    // the daemon dies: nothing reads the supervisor's verdict but the test
    ProcessBuilder builder =
        new ProcessBuilder(
            Executables.inNewSession(
                run.wrap(
                    List.of(
                        "sh",
                        "-c",
                        "trap 'echo trapped >> \""
                            + trapped
                            + "\"; exit 143' TERM; sleep 30 & echo $! > '"
                            + pidFile
                            + "'; wait $!"))));
    builder.environment().put(ProcessTree.RUN_ID, runId);
    Process process = builder.start();
    Poll.until("the job started its sleep", LIMIT, () -> readPid(pidFile) > 0);
    // the daemon dies: its ends of every pipe close. The shell's "Terminated" notice on its
    // stderr must not kill it by SIGPIPE before its trap runs
    process.getInputStream().close();
    process.getErrorStream().close();
    process.getOutputStream().close();

    assertThat(process.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(143);
    assertThat(trapped).as("the trap ran once").hasContent("trapped");
    Poll.until("the sleep is gone", LIMIT, () -> gone(readPid(pidFile)));
    assertThat(run.finish()).hasValue("stopped by its supervisor: the daemon's pipe closed");
  }

  private record StoppedRun(JobResult result, long grandchild) {}

  /** Starts the runner on its own thread, then stops it as the scheduler does. */
  private static StoppedRun startAndStop(CommandJobRunner runner, Path pidFile, StopReason reason)
      throws Exception {
    return startAndStop(runner, JobContexts.of("stoppable", 7), pidFile, reason);
  }

  private static StoppedRun startAndStop(
      CommandJobRunner runner, JobContext context, Path pidFile, StopReason reason)
      throws Exception {
    AtomicReference<JobResult> result = new AtomicReference<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.set(runner.run(context));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    thread.start();
    Poll.until("the job started its grandchild", LIMIT, () -> readPid(pidFile) > 0);
    long grandchild = readPid(pidFile);
    assertThat(ProcessHandle.of(grandchild)).isPresent();

    context.requestStop(reason);
    thread.interrupt();
    thread.join(LIMIT.toMillis());

    assertThat(thread.isAlive()).isFalse();
    assertThat(result.get().outcome()).isEqualTo(Outcome.FAILED);
    return new StoppedRun(result.get(), grandchild);
  }

  private static long readPid(Path file) {
    try {
      String text = Files.readString(file).strip();
      return text.isEmpty() ? -1 : Long.parseLong(text);
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Exited: a killed process re-parented to a PID 1 that does not reap (as in some containers and
   * CI sandboxes) stays a zombie, which {@link ProcessHandle#isAlive()} still counts as alive.
   */
  private static boolean gone(long pid) {
    return ProcessHandle.of(pid).map(p -> !ProcessTree.running(p)).orElse(true);
  }
}
