package dev.leasehold.app.cli;

/**
 * Delivers the request to stop (SIGTERM/SIGINT, and SIGHUP where no reload is registered), and the
 * request to reload (SIGHUP in {@code run}). {@link #onShutdown} registers an action that runs on a
 * separate thread when the signal comes.
 */
@FunctionalInterface
public interface ShutdownSignal {
  void onShutdown(Runnable action);

  /**
   * Registers what SIGHUP does instead of stopping: reload the configuration ({@code run}). Where
   * none is registered (a one-shot command), SIGHUP stops like SIGTERM.
   */
  default void onReload(Runnable action) {}

  /**
   * The process's signals, handled before the JVM shuts down (see {@link SignalShutdown}); install
   * once, early in {@code main}.
   */
  static ShutdownSignal signals() {
    return SignalShutdown.install();
  }

  /**
   * JVM shutdown hooks (run on SIGTERM, SIGINT and normal exit). They run alongside every library's
   * own hooks, so a stop that still needs the store can race them: {@link #signals()} is what
   * {@code main} uses.
   */
  static ShutdownSignal jvm() {
    return action -> Runtime.getRuntime().addShutdownHook(new Thread(action, "leasehold-shutdown"));
  }
}
