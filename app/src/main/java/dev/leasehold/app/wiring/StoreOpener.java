package dev.leasehold.app.wiring;

import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
  /**
   * {@link #openOnce} for a one-shot command that holds no lease (status, history, nodes, pause,
   * resume, reset, a trigger request): a store round trip may take up to the default command
   * timeout even when the file's jobs ask a daemon for a shorter one (a 1 s renewal makes a 1 s
   * timeout, which a loaded store or machine can exceed on its first connection).
   */
  public static StoreBackend openForCommand(StoreFactory factory, StoreSettings settings) {
    return openOnce(factory, patient(settings));
  }

  /** {@code settings} with a command timeout of at least the default one. */
  public static StoreSettings patient(StoreSettings settings) {
    if (settings.commandTimeout().compareTo(LeaseDefaults.COMMAND_TIMEOUT) >= 0) {
      return settings;
    }
    return new StoreSettings(
        settings.type(),
        settings.url(),
        settings.urls(),
        settings.username(),
        settings.password(),
        settings.keyPrefix(),
        LeaseDefaults.COMMAND_TIMEOUT,
        settings.options());
  }

  public static StoreBackend openChecked(
      StoreFactory factory, StoreSettings settings, String node) {
    return openChecked(factory, settings, node, backend -> {});
  }

  /**
   * As {@link #openChecked(StoreFactory, StoreSettings, String)}, running {@code beside} on this
   * thread while the self-check runs on another (the check mostly waits for a lease to expire).
   * {@code beside} must not write to the store: nothing may be claimed before the check passed.
   * When {@code beside} fails, its exception is thrown as a {@link BesideFailed} once the check
   * ended, and the store is closed.
   */
  static StoreBackend openChecked(
      StoreFactory factory, StoreSettings settings, String node, Consumer<StoreBackend> beside) {
    StoreBackend backend = openOnce(factory, settings);
    StartupTrace.mark("store opened");
    CompletableFuture<Void> check = new CompletableFuture<>();
    Thread checker =
        new Thread(
            () -> {
              try (StoreBackend second = factory.open(settings)) {
                StartupTrace.mark("second client opened");
                new StoreSelfCheck(settings, node, factory.selfCheckTtl(settings))
                    .run(backend, second);
                check.complete(null);
              } catch (Throwable e) {
                check.completeExceptionally(e);
              }
            },
            "leasehold-self-check");
    checker.setDaemon(true);
    checker.start();
    RuntimeException besideFailure = null;
    try {
      beside.accept(backend);
    } catch (RuntimeException e) {
      besideFailure = new BesideFailed(e);
    }
    try {
      check.join();
    } catch (CompletionException e) {
      backend.close();
      if (besideFailure != null) {
        throw besideFailure;
      }
      if (e.getCause() instanceof Error error) {
        throw error; // as the check on this thread would have: not a store failure to retry
      }
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    if (besideFailure != null) {
      backend.close();
      throw besideFailure;
    }
    return backend;
  }

  /** What ran beside the self-check failed: not a store failure, so not retried. */
  public static final class BesideFailed extends RuntimeException {
    BesideFailed(RuntimeException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /**
   * Opens the store and runs the self-check, retrying until both succeed; empty when {@code
   * shutdown} reached zero first.
   */
  public static Optional<StoreBackend> openWithRetry(
      StoreFactory factory, StoreSettings settings, String node, CountDownLatch shutdown) {
    return openWithRetry(factory, settings, node, shutdown, backend -> {});
  }

  /**
   * As {@link #openWithRetry(StoreFactory, StoreSettings, String, CountDownLatch)}, running {@code
   * beside} (which must not write to the store) on this thread while each attempt's self-check runs
   * on another; it runs again, with the new store, on every attempt whose store answered. Its own
   * failure is not retried: it is thrown as it is.
   */
  public static Optional<StoreBackend> openWithRetry(
      StoreFactory factory,
      StoreSettings settings,
      String node,
      CountDownLatch shutdown,
      Consumer<StoreBackend> beside) {
    Duration backoff = FIRST_BACKOFF;
    for (int attempt = 1; ; attempt++) {
      try {
        StoreBackend backend = openChecked(factory, settings, node, beside);
        if (attempt > 1) {
          log.info("store {} answered after {} attempts", StoreWords.describe(settings), attempt);
        }
        return Optional.of(backend);
      } catch (BesideFailed e) {
        throw (RuntimeException) e.getCause();
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
