package dev.leasehold.app.cli;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM, SIGINT and SIGHUP handled by Leasehold itself instead of by JVM shutdown hooks. The
 * graceful stop (jobs finish or are stopped, leases released, history written, store closed) runs
 * <b>before</b> the JVM starts shutting down, so no library's own shutdown hook (H2 closes its
 * databases in one) can close something the stop still needs; the command then returns its exit
 * code and the JVM exits normally.
 *
 * <p>SIGHUP reloads the configuration instead where a reload action is registered ({@link
 * #onReload}: {@code run}), on a thread of its own, one at a time; during a stop it is ignored.
 *
 * <p>A signal that comes before any stop action was registered (start-up) exits at once with 128 +
 * the signal number, as the JVM would. Further signals during a stop are ignored: the stop is
 * bounded by {@code shutdown-grace} and the kill grace. Where signals cannot be handled (the JVM
 * runs with {@code -Xrs}) the actions fall back to shutdown hooks.
 */
final class SignalShutdown implements ShutdownSignal {
  private static final Logger log = LoggerFactory.getLogger(SignalShutdown.class);
  private static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");

  private final List<Runnable> actions = new ArrayList<>();
  private Runnable reload;
  private boolean signalled;
  private boolean hooksInstead;

  /**
   * SIGHUP was ignored when the process started (as under {@code nohup}): the JVM then keeps it
   * ignored and installs no handler, so a SIGHUP cannot reload.
   */
  private boolean hangupIgnored;

  static SignalShutdown install() {
    SignalShutdown shutdown = new SignalShutdown();
    for (String name : SIGNALS) {
      try {
        SignalHandler before = Signal.handle(new Signal(name), shutdown::received);
        if (name.equals("HUP") && before == SignalHandler.SIG_IGN) {
          shutdown.hangupIgnored = true;
        }
      } catch (IllegalArgumentException e) {
        shutdown.hooksInstead = true;
      }
    }
    return shutdown;
  }

  @Override
  public synchronized void onShutdown(Runnable action) {
    if (hooksInstead) {
      Runtime.getRuntime().addShutdownHook(new Thread(action, "leasehold-shutdown"));
      return;
    }
    actions.add(action);
    if (signalled) {
      start(action);
    }
  }

  @Override
  public synchronized void onReload(Runnable action) {
    reload = action;
    if (hangupIgnored) {
      log.warn(
          "SIGHUP is ignored in this process (it was started that way, as nohup does), so kill"
              + " -HUP and systemctl reload do not reload the configuration; use POST /reload on"
              + " the admin endpoint, or start the daemon without nohup");
    }
  }

  private synchronized void received(Signal signal) {
    if (reload != null && signal.getName().equals("HUP") && !signalled) {
      log.info("SIGHUP received: reloading the configuration");
      new Thread(reload, "leasehold-reload").start();
      return;
    }
    if (signalled) {
      log.info("SIG{} ignored: already stopping", signal.getName());
      return;
    }
    signalled = true;
    if (actions.isEmpty()) {
      System.exit(128 + signal.getNumber());
    }
    log.info("SIG{} received: stopping gracefully", signal.getName());
    actions.forEach(SignalShutdown::start);
  }

  private static void start(Runnable action) {
    new Thread(action, "leasehold-shutdown").start();
  }
}
