package dev.leasehold.app.testing;

import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.cli.ShutdownSignal;
import dev.leasehold.app.wiring.StoreModules;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

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
            false);
    int code = new Cli(context).execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** What SIGTERM does: runs every registered shutdown action. */
  public void sendShutdown() {
    shutdownActions.forEach(Runnable::run);
  }
}
