package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.app.wiring.StoreWords;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.store.StoreBackend;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code validate}: the same checks as {@code run}, then stop; {@code --connect} also reaches the
 * store and runs the conformance self-check on it (exit 2 when the server fails it).
 */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Checks the configuration exactly as 'run' does, without starting anything.",
      "With --connect, also opens the store, checks that it answers and that it behaves as",
      "Leasehold needs (the conformance self-check on scratch lease names)."
    })
final class ValidateCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(
      names = "--connect",
      description = "Also reach the store and run the conformance self-check (under a second).")
  boolean connect;

  private final CliContext context;

  ValidateCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws ConfigException {
    context.logging(false, "WARN", true);
    PreparedConfig prepared = context.prepare(config.file);
    DaemonConfig c = prepared.config();
    String store = StoreWords.describe(c.store());
    if (connect) {
      try (StoreBackend backend =
          StoreOpener.openChecked(prepared.storeFactory(), c.store(), c.node())) {
        store += " (answered), self-check passed";
      } catch (IncompatibleStoreException e) {
        context.err().println("leasehold: " + c.file() + ": " + StoreWords.summary(e));
        return Cli.USAGE;
      } catch (RuntimeException e) {
        context
            .err()
            .println(
                "leasehold: "
                    + c.file()
                    + ": store "
                    + store
                    + " is not reachable: "
                    + StoreWords.summary(e));
        return Cli.FAILURE;
      }
    }
    context
        .out()
        .printf(
            "%s: OK, %d job%s%s, node %s, store %s%n",
            c.file(),
            c.jobs().size(),
            c.jobs().size() == 1 ? "" : "s",
            c.checks().isEmpty()
                ? ""
                : ", " + c.checks().size() + " check" + (c.checks().size() == 1 ? "" : "s"),
            c.node(),
            store);
    return Cli.OK;
  }
}
