package dev.leasehold.app.wiring;

import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens stores: once for the one-shot commands ({@link #openOnce}, {@link #openChecked}), and for
 * {@code run} until it answers ({@link #openWithRetry}). How a store and its failures read in a
 * line is {@link StoreWords}'. For {@code run}: a store that is down at start-up, or that fails the
 * conformance self-check ({@link StoreSelfCheck}), is retried with capped exponential backoff
 * instead of ending the daemon (G8), until it answers and passes or shutdown is asked; so a fixed
 * server is picked up.
 */
public final class StoreOpener {
  private static final Logger log = LoggerFactory.getLogger(StoreOpener.class);
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private StoreOpener() {}

  /** Opens the store once and checks that it answers; throws if it cannot. */
  public static StoreBackend openOnce(StoreFactory factory, StoreSettings settings) {
    StoreBackend backend = factory.open(settings);
    try {
      backend.ping();
      return backend;
    } catch (RuntimeException e) {
      backend.close();
      throw e;
    }
  }

  /**
   * Opens the store once, checks that it answers and runs the conformance self-check on it with a
   * second client opened from the same settings (closed again); throws if either fails, an {@link
   * IncompatibleStoreException} when the server answered but does not behave as the store needs.
   */
  public static StoreBackend openChecked(
      StoreFactory factory, StoreSettings settings, String node) {
    StoreBackend backend = openOnce(factory, settings);
    StartupTrace.mark("store opened");
    try (StoreBackend second = factory.open(settings)) {
      StartupTrace.mark("second client opened");
      new StoreSelfCheck(settings, node).run(backend.leaseStore(), second.leaseStore());
      return backend;
    } catch (RuntimeException e) {
      backend.close();
      throw e;
    }
  }

  /**
   * Opens the store and runs the self-check, retrying until both succeed; empty when {@code
   * shutdown} reached zero first.
   */
  public static Optional<StoreBackend> openWithRetry(
      StoreFactory factory, StoreSettings settings, String node, CountDownLatch shutdown) {
    Duration backoff = FIRST_BACKOFF;
    for (int attempt = 1; ; attempt++) {
      try {
        StoreBackend backend = openChecked(factory, settings, node);
        if (attempt > 1) {
          log.info("store {} answered after {} attempts", StoreWords.describe(settings), attempt);
        }
        return Optional.of(backend);
      } catch (IncompatibleStoreException e) {
        log.error(
            "{}; not scheduling, retrying in {} ms", StoreWords.summary(e), backoff.toMillis());
      } catch (RuntimeException e) {
        log.warn(
            "store {} is not reachable ({}); retrying in {} ms",
            StoreWords.describe(settings),
            StoreWords.summary(e),
            backoff.toMillis());
      }
      try {
        if (shutdown.await(backoff.toMillis(), TimeUnit.MILLISECONDS)) {
          return Optional.empty();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
      backoff = backoff.multipliedBy(2);
      if (backoff.compareTo(MAX_BACKOFF) > 0) {
        backoff = MAX_BACKOFF;
      }
    }
  }
}
