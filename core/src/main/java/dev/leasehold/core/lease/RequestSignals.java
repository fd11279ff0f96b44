package dev.leasehold.core.lease;

/**
 * Port: the store's own notification that the request queue changed (PostgreSQL {@code
 * LISTEN/NOTIFY}), so that a daemon takes a {@code leasehold trigger} at once instead of at its
 * next look at the request marker. A part a store may have (returned by {@code
 * StoreBackend.requestSignals()}); a store without it is polled.
 *
 * <p>Best effort by design: a signal only wakes a daemon early, it carries nothing. A daemon still
 * reads the marker now and then, so a signal lost (a listener cut off, a store that dropped it)
 * costs latency, never a request.
 */
public interface RequestSignals {
  /** Tells the listeners of every client of this store that the request marker moved. */
  void signal();

  /**
   * Calls {@code wake} after each signal from any client of the store, and each time listening
   * starts or starts again after a failure (a signal may have been missed meanwhile), on a thread
   * of its own, until the returned handle is closed. {@code wake} must not block. Throws when
   * listening cannot start at all (the daemon then reads the marker at its usual pace).
   */
  AutoCloseable listen(Runnable wake);
}
