package dev.leasehold.store.redis.node;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce client of one store: its threads and the nodes it talks to, closed together.
 *
 * <p>Options chosen for fail-closed leases: every command ends after the command timeout (a timeout
 * is reported as a failure, never as success); the connection reconnects by itself; while it is
 * down, commands are rejected at once instead of being queued, so a renewal can never be delivered
 * late, after the lease it extends was presumed expired.
 */
public final class RedisConnector implements AutoCloseable {
  private final ClientResources resources;
  private final RedisClient client;
  private final Duration timeout;
  private final int waitReplicas;
  private final List<RedisNode> nodes = new ArrayList<>();
  private RedisClusterClient clusterClient;

  /**
   * @param waitReplicas replicas that must acknowledge each claim, acquisition and renewal on every
   *     node ({@code WAIT}), 0 for none
   */
  public RedisConnector(Duration timeout, int waitReplicas) {
    this.timeout = timeout;
    this.waitReplicas = waitReplicas;
    this.resources =
        DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(2)
            // reconnect within a second of the server coming back (Lettuce's default grows to
            // 30 s), so firings resume as soon as the store answers again (G8)
            .reconnectDelay(
                Delay.exponential(
                    Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
            .build();
    this.client = RedisClient.create(resources);
    client.setOptions(
        ClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(timeout))
            .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
            .build());
  }

  /**
   * The cluster reached through {@code seeds}, with the same fail-closed options, and a topology
   * that follows failovers: refreshed when a command is redirected (MOVED/ASK), a node is unknown
   * or a slot uncovered, a connection fails to reconnect (at most every 0.5 s), a command times out
   * or is refused ({@link RedisNode}, at most once a second), and every 5 seconds.
   */
  public synchronized RedisNode cluster(List<RedisURI> seeds, String address) {
    clusterClient = RedisClusterClient.create(resources, seeds);
    clusterClient.setOptions(
        ClusterClientOptions.builder()
            .autoReconnect(true)
            // the cluster client opens a node's connection on the first command routed to it and
            // would reject that command: here commands wait for the connection, never longer than
            // the command timeout (a late delivery is refused by the scripts' token checks, or
            // leaves a lease that nobody runs under and that expires: never a second run)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(timeout))
            .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
            // the topology is read from every known node (a dead one is skipped), bounded by the
            // connect and command timeouts of the seeds (both the store's command timeout)
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enableAllAdaptiveRefreshTriggers()
                    .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                    // a node that cannot be reconnected at once (a dead master) triggers a read
                    .refreshTriggersReconnectAttempts(1)
                    .dynamicRefreshSources(true)
                    .closeStaleConnections(true)
                    .enablePeriodicRefresh(Duration.ofSeconds(5))
                    .build())
            .build());
    RedisNode node = new RedisNode(new ClusterTopology(clusterClient, address), timeout, 0);
    nodes.add(node);
    return node;
  }

  public synchronized RedisNode node(RedisURI uri) {
    Topology topology =
        uri.getSentinelMasterId() != null
            ? new SentinelTopology(client, uri)
            : new StandaloneTopology(client, uri);
    RedisNode node = new RedisNode(topology, timeout, waitReplicas);
    nodes.add(node);
    return node;
  }

  @Override
  public synchronized void close() {
    nodes.forEach(RedisNode::close);
    if (clusterClient != null) {
      clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
