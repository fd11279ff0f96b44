package dev.leasehold.app.testing;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.cli.ShutdownSignal;
import dev.leasehold.app.logging.LogSetup;
import dev.leasehold.app.wiring.StoreModules;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * Drives the real CLI entry point ({@link Cli#execute}) with its own environment, captured
 * stdout/stderr and a shutdown signal the test fires instead of SIGTERM.
 */
public final class CliHarness {
  private static final StoreModules STORES = StoreModules.discover();

  private final Map<String, String> env = new HashMap<>(System.getenv());
  private final List<Runnable> shutdownActions = new CopyOnWriteArrayList<>();

  /** The result of one command line. */
  public record Result(int code, String out, String err) {
    public List<String> errLines() {
      return err.lines().toList();
    }
  }

  public CliHarness env(String name, String value) {
    env.put(name, value);
    return this;
  }

  public Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    ShutdownSignal signal = shutdownActions::add;
    CliContext context =
        new CliContext(
            Map.copyOf(env),
            new PrintWriter(out),
            new PrintWriter(err),
            () -> STORES,
            signal,
            false,
            Clock.systemUTC());
    int code = new Cli(context).execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /**
   * {@code run --config config} with Leasehold's own log setup at {@code level} and stderr
   * captured, until the log so far satisfies {@code until} (or the daemon ends, or {@code limit}
   * passes); then {@code whileRunning}, then a shutdown. Returns the log and the command's output.
   */
  public String runLogged(
      Path config,
      String level,
      Duration limit,
      String waitingFor,
      Predicate<String> until,
      Runnable whileRunning)
      throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      LogSetup.configure(false, level, true);
      CompletableFuture<Result> run =
          CompletableFuture.supplyAsync(() -> run("run", "--config", config.toString()));
      Poll.until(
          waitingFor,
          limit,
          () -> run.isDone() || until.test(captured.toString(StandardCharsets.UTF_8)));
      whileRunning.run();
      sendShutdown();
      Result result = run.get(limit.toSeconds(), TimeUnit.SECONDS);
      return captured.toString(StandardCharsets.UTF_8) + result.out() + result.err();
    } finally {
      System.setErr(original);
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      context.reset();
      new ContextInitializer(context).autoConfig();
    }
  }

  /** What SIGTERM does: runs every registered shutdown action. */
  public void sendShutdown() {
    shutdownActions.forEach(Runnable::run);
  }
}
