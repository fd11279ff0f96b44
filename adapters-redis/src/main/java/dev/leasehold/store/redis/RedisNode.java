package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseStoreException;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One Redis endpoint (a standalone master, or a master found through Sentinel). The connection is
 * opened lazily on first use and, once open, reconnects by itself; while it is disconnected
 * commands are rejected at once (never queued), and every command ends after the command timeout. A
 * failed first connect is retried on the next call.
 */
final class RedisNode implements AutoCloseable {
  private final RedisClient client;
  private final RedisURI uri;
  private final String address;
  private final Duration timeout;
  private final int waitReplicas;
  private CompletableFuture<StatefulRedisConnection<String, String>> connection;

  RedisNode(RedisClient client, RedisURI uri, Duration timeout, int waitReplicas) {
    this.client = client;
    this.waitReplicas = waitReplicas;
    this.uri = uri;
    this.timeout = timeout;
    this.address = RedisUris.describe(uri);
  }

  /** host:port (or the Sentinel master id) for messages; never credentials. */
  String address() {
    return address;
  }

  Duration timeout() {
    return timeout;
  }

  private synchronized CompletableFuture<RedisAsyncCommands<String, String>> commands() {
    if (connection == null || connection.isCompletedExceptionally()) {
      connection = client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
    }
    return connection.thenApply(StatefulRedisConnection::async);
  }

  /**
   * Runs {@code script} by EVALSHA, and by EVAL when the server does not know the script (NOSCRIPT)
   * or does not know EVALSHA. The reply is the plain RESP value, for {@link Replies} to check.
   */
  CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
    return followFailover(
        commands()
            .thenCompose(
                c ->
                    c.<Object>evalsha(script.sha(), LuaScript.output(), keys, args)
                        .toCompletableFuture()
                        .exceptionallyCompose(
                            e ->
                                unwrap(e) instanceof RedisNoScriptException || unknownCommand(e)
                                    ? c.<Object>eval(
                                            script.source(), LuaScript.output(), keys, args)
                                        .toCompletableFuture()
                                    : CompletableFuture.failedFuture(unwrap(e)))));
  }

  /**
   * Behind Sentinel, a call that failed because the connection is down, or because it reaches a
   * server that refuses writes with {@code READONLY} (the old master, back as a replica on the same
   * address), drops the connection: the next call asks the sentinels for the master afresh, instead
   * of waiting for the client's own reconnection to an address that may no longer be the master.
   */
  private <T> CompletableFuture<T> followFailover(CompletableFuture<T> call) {
    if (uri.getSentinelMasterId() == null) {
      return call;
    }
    return call.whenComplete(
        (v, e) -> {
          if (e != null && (unwrap(e) instanceof RedisReadOnlyException || disconnected())) {
            dropConnection();
          }
        });
  }

  private synchronized boolean disconnected() {
    return connection != null
        && connection.isDone()
        && !connection.isCompletedExceptionally()
        && !connection.join().isOpen();
  }

  private synchronized void dropConnection() {
    CompletableFuture<StatefulRedisConnection<String, String>> old = connection;
    connection = null;
    if (old != null) {
      old.thenAccept(StatefulRedisConnection::closeAsync);
    }
  }

  /** How many replicas must acknowledge a write before it counts (0: none asked). */
  int waitReplicas() {
    return waitReplicas;
  }

  /**
   * {@code WAIT n timeout} after a write of this connection: completes normally when at least
   * {@link #waitReplicas} replicas acknowledged everything written so far, else fails with a {@link
   * LeaseStoreException} saying how many did. The server's timeout is half the command timeout, so
   * it answers before the client gives up.
   */
  CompletableFuture<Void> replicated(String what) {
    long waitMs = Math.max(1, timeout.toMillis() / 2);
    return call(c -> c.waitForReplication(waitReplicas, waitMs))
        .thenApply(
            acks -> {
              if (acks == null || acks < waitReplicas) {
                throw new LeaseStoreException(
                    "Redis "
                        + address
                        + ": "
                        + what
                        + ": "
                        + acks
                        + " of the "
                        + waitReplicas
                        + " replicas required by store.options.wait-replicas acknowledged it"
                        + " within "
                        + waitMs
                        + " ms");
              }
              return null;
            });
  }

  private static boolean unknownCommand(Throwable e) {
    Throwable cause = unwrap(e);
    return cause instanceof RedisCommandExecutionException
        && cause.getMessage() != null
        && cause.getMessage().toLowerCase(java.util.Locale.ROOT).contains("unknown command");
  }

  /** Any other command, on the async API. */
  <T> CompletableFuture<T> call(
      Function<RedisAsyncCommands<String, String>, ? extends CompletionStage<T>> command) {
    return followFailover(commands().thenCompose(command));
  }

  /** One PING round trip; throws {@link LeaseStoreException} when the node does not answer. */
  void ping() {
    await(call(RedisAsyncCommands::ping), "PING");
  }

  /** Every key matching {@code pattern}, by SCAN (never KEYS). Blocking. */
  List<String> scan(String pattern) {
    List<String> keys = new ArrayList<>();
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(500);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      ScanCursor from = cursor;
      KeyScanCursor<String> page = await(call(c -> c.scan(from, args)), "SCAN");
      keys.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return keys;
  }

  /** Waits for {@code future} a little longer than the command timeout. */
  <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | CompletionException e) {
      throw failure(what, e);
    } catch (TimeoutException e) {
      throw failure(what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure(what, e);
    }
  }

  /** A store failure naming this node and the step, with the driver's reason. */
  LeaseStoreException failure(String what, Throwable e) {
    Throwable cause = unwrap(e);
    if (cause instanceof LeaseStoreException known) {
      return known;
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
    return new LeaseStoreException("Redis " + address + ": " + what + " failed: " + reason, cause);
  }

  static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public synchronized void close() {
    if (connection != null && connection.isDone() && !connection.isCompletedExceptionally()) {
      connection.join().close();
    } else if (connection != null) {
      connection.thenAccept(StatefulRedisConnection::close);
    }
  }
}
