package dev.leasehold.store.redis.node;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * How a {@link RedisNode} reaches Redis: one server ({@link StandaloneTopology}), the master that
 * Sentinel names ({@link SentinelTopology}) or a whole Redis Cluster ({@link ClusterTopology}).
 * Each says how the connection is opened, what a failed call means for it, and which servers a SCAN
 * must visit; everything else (scripts, timeouts, failures, {@code WAIT}) is {@link RedisNode}'s,
 * the same for all three.
 */
interface Topology {
  /** host:port, the Sentinel master or the cluster's seeds, for messages; never credentials. */
  String address();

  /** How a failure to connect names the target: {@code at host:port/db}, or the address. */
  default String target() {
    return "at " + address();
  }

  /** Opens the connection: on first use, and again after a failed open or a dropped connection. */
  CompletableFuture<StatefulConnection<String, String>> open();

  /**
   * Opens a connection for {@code SUBSCRIBE}: to the server, to the master Sentinel names, or to a
   * node of the cluster (a cluster delivers a {@code PUBLISH} on every node).
   */
  CompletableFuture<StatefulRedisPubSubConnection<String, String>> openPubSub();

  /** Whether a script may only touch keys of one hash slot. */
  default boolean cluster() {
    return false;
  }

  /**
   * Told that a call failed with {@code cause} (unwrapped): true when the connection must be
   * dropped, so that the next call opens it afresh.
   *
   * @param disconnected whether the open connection is closed now
   */
  default boolean dropAfter(Throwable cause, BooleanSupplier disconnected) {
    return false;
  }

  /** The servers one SCAN covers, one after the other: the connection itself, by default. */
  default List<RedisNode.Caller> scanned(RedisNode node) {
    return List.of(node::call);
  }
}
