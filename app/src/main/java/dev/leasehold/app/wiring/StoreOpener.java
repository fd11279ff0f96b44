package dev.leasehold.app.wiring;

import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.Redaction;
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
 * Opens the store for {@code run}: a store that is down at start-up, or that fails the conformance
 * self-check ({@link StoreSelfCheck}), is retried with capped exponential backoff instead of ending
 * the daemon (G8), until it answers and passes or shutdown is asked; so a fixed server is picked
 * up.
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
          log.info("store {} answered after {} attempts", describe(settings), attempt);
        }
        return Optional.of(backend);
      } catch (IncompatibleStoreException e) {
        log.error("{}; not scheduling, retrying in {} ms", summary(e), backoff.toMillis());
      } catch (RuntimeException e) {
        log.warn(
            "store {} is not reachable ({}); retrying in {} ms",
            describe(settings),
            summary(e),
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

  /** {@code h2 jdbc:h2:file:./data/leasehold}, passwords redacted. */
  public static String describe(StoreSettings settings) {
    String where =
        settings.url() != null
            ? Redaction.redactUrl(settings.url())
            : String.join(",", settings.urls().stream().map(Redaction::redactUrl).toList());
    return settings.type() + " " + where;
  }

  /**
   * One line about a failure, without a stack trace and without secrets: the messages of the
   * exception and up to two of its causes, ending at a {@link StoreUnreachableException} (which
   * names the store, its host and port and the plain cause).
   */
  public static String summary(Throwable e) {
    StringBuilder out = new StringBuilder();
    Throwable t = e;
    for (int depth = 0; t != null && depth < 3; depth++, t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      message = Redaction.scrub(message.lines().findFirst().orElse("").strip());
      if (out.indexOf(message) < 0) {
        out.append(out.length() == 0 ? "" : ": ").append(message);
      }
      if (t instanceof StoreUnreachableException) {
        // its message is complete: the driver's wording of the cause adds only its internals
        break;
      }
    }
    return out.toString();
  }
}
