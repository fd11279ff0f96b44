package dev.leasehold.app;

import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.cli.ShutdownSignal;
import dev.leasehold.app.logging.LogSetup;
import dev.leasehold.app.wiring.StoreModules;
import java.io.PrintWriter;
import java.nio.charset.Charset;

/** {@code java -jar leasehold.jar ...}: see {@link Cli}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    LogSetup.configure(false, "WARN", true);
    Charset charset = Charset.defaultCharset();
    CliContext context =
        new CliContext(
            System.getenv(),
            new PrintWriter(System.out, true, charset),
            new PrintWriter(System.err, true, charset),
            StoreModules::discover,
            ShutdownSignal.jvm(),
            true);
    int code = new Cli(context).execute(args);
    if (shuttingDown()) {
      // run/trigger ended because of SIGTERM/SIGINT and has cleaned up: exit with its own code
      // (System.exit would block here and the JVM would report 143/130 instead)
      Runtime.getRuntime().halt(code);
    }
    System.exit(code);
  }

  private static boolean shuttingDown() {
    try {
      Thread probe = new Thread(() -> {});
      Runtime.getRuntime().addShutdownHook(probe);
      Runtime.getRuntime().removeShutdownHook(probe);
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }
}
