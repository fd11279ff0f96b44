import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.runner.CommandJobRunner;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.TriggerKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the run supervisor costs per command run (benchmarks/JOURNAL.md, "Command runs under their
 * supervisor"): RUNS runs of {@code true} through the daemon's own CommandJobRunner, unsupervised
 * and supervised in turn, timed from run() to its result (start, exit, the leftover check, the
 * output drain); then the processes one run of {@code sleep 2} keeps. Run by
 * scripts/measure-supervisor.sh.
 */
public class MeasureSupervisor {
  public static void main(String[] args) throws Exception {
    int runs = Integer.parseInt(args[0]);
    CommandJobRunner runner =
        new CommandJobRunner(
            new JobAction.Command(List.of("true"), Map.of(), null, Duration.ofSeconds(10)));
    List<Long> plain = new ArrayList<>();
    List<Long> supervised = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // warm-up, not counted
      time(runner, false);
      time(runner, true);
    }
    for (int i = 0; i < runs; i++) {
      plain.add(time(runner, false));
      supervised.add(time(runner, true));
    }
    System.out.println("| runs of `true` | median | p90 | mean |");
    System.out.println("|---|--:|--:|--:|");
    row("unsupervised", plain);
    row("supervised", supervised);
    System.out.println();
    System.out.println("| processes while `sleep 2` runs | count |");
    System.out.println("|---|--:|");
    System.out.println("| unsupervised | " + processes(false) + " |");
    System.out.println("| supervised | " + processes(true) + " |");
  }

  /** This JVM's descendants 1 s into a run of {@code sleep 2}. */
  private static long processes(boolean supervise) throws Exception {
    CommandJobRunner sleeper =
        new CommandJobRunner(
            new JobAction.Command(List.of("sleep", "2"), Map.of(), null, Duration.ofSeconds(10)));
    Thread run =
        new Thread(
            () -> {
              try {
                time(sleeper, supervise);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    run.start();
    Thread.sleep(1000);
    long count = ProcessHandle.current().descendants().count();
    run.join();
    return count;
  }

  private static long time(CommandJobRunner runner, boolean supervise) throws Exception {
    JobContext context =
        new JobContext("m", Instant.now(), 1, "measure", 1, TriggerKind.SCHEDULED, null);
    if (supervise) {
      long until = System.nanoTime() + 60_000_000_000L;
      context.leaseValidity(() -> (until - System.nanoTime()) / 1_000_000);
    }
    long t0 = System.nanoTime();
    JobResult result = runner.run(context);
    long micros = (System.nanoTime() - t0) / 1000;
    if (result.exitCode() == null || result.exitCode() != 0) {
      throw new IllegalStateException("true failed: " + result);
    }
    return micros;
  }

  private static void row(String what, List<Long> micros) {
    List<Long> s = new ArrayList<>(micros);
    Collections.sort(s);
    double mean = s.stream().mapToLong(Long::longValue).average().orElse(0);
    System.out.printf(
        "| %s (%d) | %.1f ms | %.1f ms | %.1f ms |%n",
        what, s.size(), s.get(s.size() / 2) / 1000.0, s.get(s.size() * 9 / 10) / 1000.0, mean / 1000.0);
  }
}
