package dev.leasehold.store.redis.node;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A whole Redis Cluster, described as {@code address}: its client routes each command by its key's
 * slot, and a SCAN visits every master that serves slots.
 */
final class ClusterTopology implements Topology {
  private final RedisClusterClient client;
  private final String address;
  private final AtomicLong lastRefresh = new AtomicLong();

  ClusterTopology(RedisClusterClient client, String address) {
    this.client = client;
    this.address = address;
  }

  @Override
  public String address() {
    return address;
  }

  @Override
  public String target() {
    return address;
  }

  @Override
  public boolean cluster() {
    return true;
  }

  @Override
  public CompletableFuture<StatefulConnection<String, String>> open() {
    // the asynchronous connect needs the topology loaded first (the blocking one loads it)
    return client
        .refreshPartitionsAsync()
        .toCompletableFuture()
        .thenCompose(v -> client.connectAsync(StringCodec.UTF8))
        .thenCompose(this::openMasters);
  }

  @Override
  public CompletableFuture<StatefulRedisPubSubConnection<String, String>> openPubSub() {
    return client
        .refreshPartitionsAsync()
        .toCompletableFuture()
        .thenCompose(v -> client.connectPubSubAsync(StringCodec.UTF8))
        .thenApply(c -> (StatefulRedisPubSubConnection<String, String>) c);
  }

  /**
   * Opens the connection to every master at once: the cluster client opens them on first use, and a
   * command sent while its node's connection is still opening is rejected (commands are never
   * queued). Masters that appear later (a failover) are connected on their first use; a command
   * rejected meanwhile fails closed and is retried by the caller.
   */
  private CompletableFuture<StatefulConnection<String, String>> openMasters(
      StatefulRedisClusterConnection<String, String> c) {
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

  /**
   * A master that died keeps its slots in the client's view until the topology is read again: a
   * timeout or a refused connection reads it again (at most once a second). The connection stays.
   */
  @Override
  public boolean dropAfter(Throwable cause, BooleanSupplier disconnected) {
    if (cause instanceof RedisCommandTimeoutException
        || cause instanceof RedisConnectionException) {
      long now = System.nanoTime();
      long last = lastRefresh.get();
      if (now - last > 1_000_000_000L && lastRefresh.compareAndSet(last, now)) {
        client.refreshPartitionsAsync();
      }
    }
    return false;
  }

  /**
   * Every master that serves slots now, one after the other (the client's own cluster-wide scan
   * also visits a failed master that lost its slots, and fails on it).
   */
  @Override
  public List<RedisNode.Caller> scanned(RedisNode node) {
    @SuppressWarnings("unchecked")
    StatefulRedisClusterConnection<String, String> cc =
        (StatefulRedisClusterConnection<String, String>) node.await(node.connected(), "SCAN");
    List<RedisNode.Caller> masters = new ArrayList<>();
    for (RedisClusterNode n : cc.getPartitions()) {
      if (n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty()) {
        masters.add(
            command ->
                cc.getConnectionAsync(n.getNodeId())
                    .toCompletableFuture()
                    .thenCompose(master -> command.apply(master.async())));
      }
    }
    return masters;
  }
}
