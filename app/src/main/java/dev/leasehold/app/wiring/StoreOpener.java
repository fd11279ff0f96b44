package dev.leasehold.app.wiring;

import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the store for {@code run}: a store that is down at start-up is retried with capped
 * exponential backoff instead of ending the daemon (G8), until it answers or shutdown is asked.
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

  /** Opens the store, retrying until it answers; empty when {@code shutdown} reached zero first. */
  public static Optional<StoreBackend> openWithRetry(
      StoreFactory factory, StoreSettings settings, CountDownLatch shutdown) {
    Duration backoff = FIRST_BACKOFF;
    for (int attempt = 1; ; attempt++) {
      try {
        StoreBackend backend = openOnce(factory, settings);
        if (attempt > 1) {
          log.info("store {} answered after {} attempts", describe(settings), attempt);
        }
        return Optional.of(backend);
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

  /** One line about a failure, without a stack trace and without secrets. */
  public static String summary(Throwable e) {
    StringBuilder out = new StringBuilder();
    Throwable t = e;
    for (int depth = 0; t != null && depth < 3; depth++, t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      message = Redaction.scrub(message.lines().findFirst().orElse("").strip());
      if (out.indexOf(message) < 0) {
        out.append(out.length() == 0 ? "" : ": ").append(message);
      }
    }
    return out.toString();
  }
}
