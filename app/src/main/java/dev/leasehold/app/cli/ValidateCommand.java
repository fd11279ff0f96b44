package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.store.StoreBackend;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code validate}: the same checks as {@code run}, then stop; {@code --connect} also pings. */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Checks the configuration exactly as 'run' does, without starting anything.",
      "With --connect, also opens the store and checks that it answers."
    })
final class ValidateCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--connect", description = "Also reach the store (one round trip).")
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
    String store = StoreOpener.describe(c.store());
    if (connect) {
      try (StoreBackend backend = StoreOpener.openOnce(prepared.storeFactory(), c.store())) {
        store += " (answered)";
      } catch (RuntimeException e) {
        context
            .err()
            .println(
                "leasehold: "
                    + c.file()
                    + ": store "
                    + store
                    + " is not reachable: "
                    + StoreOpener.summary(e));
        return Cli.FAILURE;
      }
    }
    context
        .out()
        .printf(
            "%s: OK, %d job%s, node %s, store %s%n",
            c.file(), c.jobs().size(), c.jobs().size() == 1 ? "" : "s", c.node(), store);
    return Cli.OK;
  }
}
