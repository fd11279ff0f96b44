package dev.leasehold.app;

import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.cli.ShutdownSignal;
import dev.leasehold.app.logging.LogProvider;
import dev.leasehold.app.logging.LogSetup;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.wiring.StoreModules;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Clock;

/** {@code java -jar leasehold.jar ...}: see {@link Cli}. */
public final class Main {
  static final String NETTY_JFR = "io.netty.jfr.enabled";

  private Main() {}

  /** What every entry point sets before any command: quiet libraries, warnings-only logging. */
  static void prepareJvm() {
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    // Netty registers its buffer events with Flight Recorder at its first allocation, which sets
    // up Flight Recorder's event machinery (about 50 ms) in a process that records nothing;
    // -Dio.netty.jfr.enabled=true brings the events back for whoever profiles with them
    if (System.getProperty(NETTY_JFR) == null) {
      System.setProperty(NETTY_JFR, "false");
    }
    LogProvider.select();
    LogSetup.start();
  }

  public static void main(String[] args) {
    StartupTrace.mark("main");
    prepareJvm();
    StartupTrace.mark("logging started");
    Charset charset = Charset.defaultCharset();
    CliContext context =
        new CliContext(
            System.getenv(),
            new PrintWriter(System.out, true, charset),
            new PrintWriter(System.err, true, charset),
            StoreModules::discover,
            // run/trigger stop gracefully on SIGTERM/SIGINT/SIGHUP, then return their own code
            ShutdownSignal.signals(),
            true,
            Clock.systemUTC());
    System.exit(new Cli(context).execute(args));
  }
}
