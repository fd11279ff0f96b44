package dev.leasehold.app.cli;

/**
 * Delivers the request to stop (SIGTERM/SIGINT in production). {@link #onShutdown} registers an
 * action that runs on a separate thread when the signal comes; the JVM waits for it to end.
 */
@FunctionalInterface
public interface ShutdownSignal {
  void onShutdown(Runnable action);

  /** The JVM's shutdown hooks: run on SIGTERM, SIGINT and normal exit. */
  static ShutdownSignal jvm() {
    return action -> Runtime.getRuntime().addShutdownHook(new Thread(action, "leasehold-shutdown"));
  }
}
