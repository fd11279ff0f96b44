package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.ConnectFailures;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One Redis endpoint: a standalone master, a master found through Sentinel, or a whole Redis
 * Cluster (whose client routes each command by its key's slot and scans every master). The
 * connection is opened lazily on first use and, once open, reconnects by itself; while it is
 * disconnected commands are rejected at once (never queued), and every command ends after the
 * command timeout. A failed first connect is retried on the next call.
 */
final class RedisNode implements AutoCloseable {
  private final Supplier<CompletableFuture<StatefulConnection<String, String>>> opener;
  private final boolean sentinel;
  private final boolean cluster;
  private final String address;
  private final Duration timeout;
  private final int waitReplicas;
  private CompletableFuture<StatefulConnection<String, String>> connection;
  private Runnable refreshTopology = () -> {};

  RedisNode(RedisClient client, RedisURI uri, Duration timeout, int waitReplicas) {
    this(
        () ->
            client
                .connectAsync(StringCodec.UTF8, uri)
                .toCompletableFuture()
                .thenApply(c -> (StatefulConnection<String, String>) c),
        uri.getSentinelMasterId() != null,
        false,
        RedisUris.describe(uri),
        timeout,
        waitReplicas);
  }

  /** The whole cluster behind {@code client}, described as {@code address}. */
  RedisNode(RedisClusterClient client, String address, Duration timeout) {
    this(client, address, timeout, new AtomicLong());
  }

  private RedisNode(
      RedisClusterClient client, String address, Duration timeout, AtomicLong lastRefresh) {
    this(
        () ->
            // the asynchronous connect needs the topology loaded first (the blocking one loads it)
            client
                .refreshPartitionsAsync()
                .toCompletableFuture()
                .thenCompose(v -> client.connectAsync(StringCodec.UTF8))
                .thenCompose(c -> openMasters(client, c)),
        false,
        true,
        address,
        timeout,
        0);
    this.refreshTopology =
        () -> {
          long now = System.nanoTime();
          long last = lastRefresh.get();
          if (now - last > 1_000_000_000L && lastRefresh.compareAndSet(last, now)) {
            client.refreshPartitionsAsync();
          }
        };
  }

  /**
   * Opens the connection to every master at once: the cluster client opens them on first use, and a
   * command sent while its node's connection is still opening is rejected (commands are never
   * queued). Masters that appear later (a failover) are connected on their first use; a command
   * rejected meanwhile fails closed and is retried by the caller.
   */
  private static CompletableFuture<StatefulConnection<String, String>> openMasters(
      RedisClusterClient client, StatefulRedisClusterConnection<String, String> c) {
    List<CompletableFuture<?>> opening = new ArrayList<>();
    for (RedisClusterNode node : client.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)
          && !node.is(RedisClusterNode.NodeFlag.FAIL)
          && !node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
        // a master that cannot be reached now is left to the first command routed to it
        opening.add(
            c.getConnectionAsync(node.getNodeId())
                .toCompletableFuture()
                .handle((connection, e) -> null));
      }
    }
    return CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new)).thenApply(v -> c);
  }

  private RedisNode(
      Supplier<CompletableFuture<StatefulConnection<String, String>>> opener,
      boolean sentinel,
      boolean cluster,
      String address,
      Duration timeout,
      int waitReplicas) {
    this.opener = opener;
    this.sentinel = sentinel;
    this.cluster = cluster;
    this.address = address;
    this.timeout = timeout;
    this.waitReplicas = waitReplicas;
  }

  /** host:port (or the Sentinel master id, or the cluster's seeds) for messages; no credentials. */
  String address() {
    return address;
  }

  /** Whether this is a Redis Cluster: a script may then only touch keys of one slot. */
  boolean cluster() {
    return cluster;
  }

  Duration timeout() {
    return timeout;
  }

  private synchronized CompletableFuture<RedisClusterAsyncCommands<String, String>> commands() {
    if (connection == null || connection.isCompletedExceptionally()) {
      connection = opener.get();
    }
    return connection.thenApply(RedisNode::async);
  }

  @SuppressWarnings("unchecked")
  private static RedisClusterAsyncCommands<String, String> async(
      StatefulConnection<String, String> c) {
    return c instanceof StatefulRedisClusterConnection<?, ?> cc
        ? ((StatefulRedisClusterConnection<String, String>) cc).async()
        : ((StatefulRedisConnection<String, String>) c).async();
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
    if (cluster) {
      // a master that died keeps its slots in the client's view until the topology is read again:
      // a timeout or a refused connection reads it again (at most once a second)
      return call.whenComplete(
          (v, e) -> {
            if (e != null
                && (unwrap(e) instanceof io.lettuce.core.RedisCommandTimeoutException
                    || unwrap(e) instanceof io.lettuce.core.RedisConnectionException)) {
              refreshTopology.run();
            }
          });
    }
    if (!sentinel) {
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
    CompletableFuture<StatefulConnection<String, String>> old = connection;
    connection = null;
    if (old != null) {
      old.thenAccept(StatefulConnection::closeAsync);
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
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> command) {
    return followFailover(commands().thenCompose(command));
  }

  /** One PING round trip; throws {@link LeaseStoreException} when the node does not answer. */
  void ping() {
    await(call(RedisClusterAsyncCommands::ping), "PING");
  }

  /** Every key matching {@code pattern}, by SCAN (never KEYS). Blocking. */
  List<String> scan(String pattern) {
    if (!cluster) {
      return scanOn(this::<KeyScanCursor<String>>call, pattern);
    }
    // every master that serves slots now, one after the other (the client's own cluster-wide scan
    // also visits a failed master that lost its slots, and fails on it)
    StatefulRedisClusterConnection<String, String> cc =
        (StatefulRedisClusterConnection<String, String>) await(connected(), "SCAN");
    List<String> keys = new ArrayList<>();
    for (RedisClusterNode n : cc.getPartitions()) {
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty()) {
        RedisClusterAsyncCommands<String, String> master =
            await(cc.getConnectionAsync(n.getNodeId()).toCompletableFuture(), "SCAN").async();
        keys.addAll(
            scanOn(
                command -> CompletableFuture.completedFuture(master).thenCompose(command),
                pattern));
      }
    }
    return keys;
  }

  private interface Caller {
    CompletableFuture<KeyScanCursor<String>> call(
        Function<
                RedisClusterAsyncCommands<String, String>,
                ? extends CompletionStage<KeyScanCursor<String>>>
            command);
  }

  private List<String> scanOn(Caller on, String pattern) {
    List<String> keys = new ArrayList<>();
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(500);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      ScanCursor from = cursor;
      KeyScanCursor<String> page = await(on.call(c -> c.scan(from, args)), "SCAN");
      keys.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return keys;
  }

  private synchronized CompletableFuture<StatefulConnection<String, String>> connected() {
    commands();
    return connection;
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
    if (cause instanceof RedisConnectionException) {
      return unreachable(cause);
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

  /**
   * The connection could not be made: which server, and why in plain words (Lettuce's own message
   * names the address as Netty prints it, {@code 127.0.0.1/<unresolved>:6379}).
   */
  private StoreUnreachableException unreachable(Throwable cause) {
    String reason = ConnectFailures.reason(cause, timeout);
    if (reason == null) {
      reason = cause.getMessage() == null ? "connection failed" : cause.getMessage();
      reason = reason.replace("/<unresolved>", "");
    }
    return new StoreUnreachableException(
        "Redis store: cannot connect to Redis "
            + (sentinel || cluster ? "" : "at ")
            + address
            + ": "
            + reason,
        cause);
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
      connection.thenAccept(StatefulConnection::close);
    }
  }
}
