package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.ConnectFailures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * What a failed Redis call becomes: a {@link LeaseStoreException} in plain words naming the node
 * and the step, or a {@link StoreUnreachableException} when the connection could not be made.
 */
final class RedisFailures {
  private RedisFailures() {}

  /**
   * A store failure naming the node ({@code who}, "Redis host:port") and the step, with the
   * driver's reason.
   */
  static LeaseStoreException of(
      String who, String target, Duration timeout, String what, Throwable e) {
    Throwable cause = unwrap(e);
    if (cause instanceof LeaseStoreException known) {
      return known;
    }
    if (cause instanceof RedisConnectionException) {
      return unreachable(target, timeout, cause);
    }
    String reason =
        cause instanceof TimeoutException
            ? "no answer within " + timeout.toMillis() + " ms"
            : unknownCommand(cause)
                ? "the server does not run Lua scripts (" + cause.getMessage() + ")"
                : cause instanceof UnsupportedOperationException
                    // Lettuce's script output cannot take a bare status or string
                    ? "the server answered with a type the script never returns; not acquired"
                        + " (this server does not run Leasehold's scripts as Redis does)"
                    : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    return new LeaseStoreException(who + ": " + what + " failed: " + reason, cause);
  }

  /**
   * The connection could not be made: which server, and why in plain words (Lettuce's own message
   * names the address as Netty prints it, {@code 127.0.0.1/<unresolved>:6379}).
   */
  private static StoreUnreachableException unreachable(
      String target, Duration timeout, Throwable cause) {
    String reason = ConnectFailures.reason(cause, timeout);
    if (reason == null) {
      reason = cause.getMessage() == null ? "connection failed" : cause.getMessage();
      reason = reason.replace("/<unresolved>", "");
    }
    return new StoreUnreachableException(
        "Redis store: cannot connect to Redis " + target + ": " + reason, cause);
  }

  static boolean unknownCommand(Throwable e) {
    Throwable cause = unwrap(e);
    return cause instanceof RedisCommandExecutionException
        && cause.getMessage() != null
        && cause.getMessage().toLowerCase(java.util.Locale.ROOT).contains("unknown command");
  }

  static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
