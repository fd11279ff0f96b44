package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.LeaseStoreException;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.time.Instant;
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
 * One Redis endpoint, reached as its {@link Topology} says: a standalone master, a master found
 * through Sentinel, or a whole Redis Cluster. The connection is opened lazily on first use and,
 * once open, reconnects by itself; while it is disconnected commands are rejected at once (never
 * queued), and every command ends after the command timeout. A failed first connect is retried on
 * the next call.
 */
public final class RedisNode implements AutoCloseable {
  private final Topology topology;
  private final String address;
  private final Duration timeout;
  private final int waitReplicas;
  private CompletableFuture<StatefulConnection<String, String>> connection;

  RedisNode(Topology topology, Duration timeout, int waitReplicas) {
    this.topology = topology;
    this.address = topology.address();
    this.timeout = timeout;
    this.waitReplicas = waitReplicas;
  }

  /** host:port (or the Sentinel master id, or the cluster's seeds) for messages; no credentials. */
  public String address() {
    return address;
  }

  /** Whether this is a Redis Cluster: a script may then only touch keys of one slot. */
  public boolean cluster() {
    return topology.cluster();
  }

  public Duration timeout() {
    return timeout;
  }

  private synchronized CompletableFuture<RedisClusterAsyncCommands<String, String>> commands() {
    if (connection == null || connection.isCompletedExceptionally()) {
      connection = topology.open();
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
  public CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
    return followFailover(
        commands()
            .thenCompose(
                c ->
                    c.<Object>evalsha(script.sha(), LuaScript.output(), keys, args)
                        .toCompletableFuture()
                        .exceptionallyCompose(
                            e ->
                                unwrap(e) instanceof RedisNoScriptException
                                        || RedisFailures.unknownCommand(e)
                                    ? c.<Object>eval(
                                            script.source(), LuaScript.output(), keys, args)
                                        .toCompletableFuture()
                                    : CompletableFuture.failedFuture(unwrap(e)))));
  }

  /**
   * Runs {@code script} by EVAL (its source) in one command: unlike {@link #eval}, never a second
   * command after a NOSCRIPT answer, so the script keeps its place among this connection's commands
   * whatever the server's script cache holds (for undos that must follow a command, {@link
   * ClaimUndo}).
   */
  CompletableFuture<Object> evalInPlace(LuaScript script, String[] keys, String... args) {
    return followFailover(
        commands()
            .thenCompose(
                c ->
                    c.<Object>eval(script.source(), LuaScript.output(), keys, args)
                        .toCompletableFuture()));
  }

  /**
   * Tells the topology of a failed call: behind Sentinel it may drop the connection, on a cluster
   * read the topology again ({@link Topology#dropAfter}).
   */
  private <T> CompletableFuture<T> followFailover(CompletableFuture<T> call) {
    return call.whenComplete(
        (v, e) -> {
          if (e != null && topology.dropAfter(unwrap(e), this::disconnected)) {
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

  /**
   * {@code WAIT n timeout} after a write of this connection: completes normally when at least
   * {@code wait-replicas} replicas acknowledged everything written so far (at once when that is 0),
   * else fails with a {@link LeaseStoreException} saying how many did. The server's timeout is half
   * the command timeout, so it answers before the client gives up.
   */
  public CompletableFuture<Void> replicated(String what) {
    if (waitReplicas == 0) {
      return CompletableFuture.completedFuture(null); // none asked: nothing to wait for
    }
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

  /** Any other command, on the async API. */
  public <T> CompletableFuture<T> call(
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> command) {
    return followFailover(commands().thenCompose(command));
  }

  /** A new connection for {@code SUBSCRIBE} (the caller's to close); it reconnects by itself. */
  public CompletableFuture<StatefulRedisPubSubConnection<String, String>> openPubSub() {
    return topology.openPubSub();
  }

  /** The server's clock ({@code TIME}): the clock its keys expire on. */
  public CompletableFuture<Instant> time() {
    return call(RedisClusterAsyncCommands::time)
        .thenApply(
            t -> Instant.ofEpochSecond(Long.parseLong(t.get(0)), Long.parseLong(t.get(1)) * 1000L));
  }

  /** One PING round trip; throws {@link LeaseStoreException} when the node does not answer. */
  public void ping() {
    await(call(RedisClusterAsyncCommands::ping), "PING");
  }

  /**
   * Every key matching {@code pattern}, by SCAN (never KEYS), on every server it needs. Blocking.
   */
  public List<String> scan(String pattern) {
    List<String> keys = new ArrayList<>();
    for (Caller server : topology.scanned(this)) {
      keys.addAll(scanOn(server, pattern));
    }
    return keys;
  }

  /** Sends a SCAN command to one server. */
  interface Caller {
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

  /** The connection, opening it if needed. */
  synchronized CompletableFuture<StatefulConnection<String, String>> connected() {
    commands();
    return connection;
  }

  /** Waits for {@code future} a little longer than the command timeout. */
  public <T> T await(CompletableFuture<T> future, String what) {
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
  public LeaseStoreException failure(String what, Throwable e) {
    return RedisFailures.of("Redis " + address, topology.target(), timeout, what, e);
  }

  /**
   * How many of {@code nodes} make a majority (more than half: 2 of 3, 3 of 5; 1 of a single
   * server): what a Redlock claim, a node record or a history write must reach.
   */
  public static int majority(List<RedisNode> nodes) {
    return nodes.size() / 2 + 1;
  }

  /** The cause inside a future's wrapping exceptions. */
  public static Throwable unwrap(Throwable e) {
    return RedisFailures.unwrap(e);
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
