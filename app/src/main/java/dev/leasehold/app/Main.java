package dev.leasehold.app;

import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.logging.LogSetup;
import dev.leasehold.app.wiring.StoreModules;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code java -jar leasehold.jar ...}: see {@link Cli}. */
public final class Main {
  /** Lets a shutdown hook wait until the command has returned its exit code. */
  private static final CountDownLatch EXIT_CODE_KNOWN = new CountDownLatch(1);

  private Main() {}

  private static void awaitExitCode() {
    try {
      EXIT_CODE_KNOWN.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** What every entry point sets before any command: quiet libraries, warnings-only logging. */
  static void prepareJvm() {
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    LogSetup.start();
  }

  public static void main(String[] args) {
    prepareJvm();
    Charset charset = Charset.defaultCharset();
    CliContext context =
        new CliContext(
            System.getenv(),
            new PrintWriter(System.out, true, charset),
            new PrintWriter(System.err, true, charset),
            StoreModules::discover,
            action ->
                Runtime.getRuntime()
                    .addShutdownHook(
                        new Thread(
                            () -> {
                              action.run();
                              awaitExitCode();
                            },
                            "leasehold-shutdown")),
            true);
    int code = new Cli(context).execute(args);
    if (shuttingDown()) {
      // run/trigger ended because of SIGTERM/SIGINT and has cleaned up, while the hook waits:
      // exit with the command's own code (else the JVM would report 143/130)
      Runtime.getRuntime().halt(code);
    }
    EXIT_CODE_KNOWN.countDown();
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
