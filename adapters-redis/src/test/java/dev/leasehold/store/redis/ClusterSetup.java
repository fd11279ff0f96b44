package dev.leasehold.store.redis;

import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Cluster on free loopback ports, started by the test: {@code masters} masters and as many
 * replicas ({@code redis-server --cluster-enabled yes}, node timeout 2 s), joined by {@code
 * redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes}.
 */
final class ClusterSetup implements AutoCloseable {
  final List<RedisServers.Server> servers = new ArrayList<>();

  ClusterSetup(int masters) throws IOException, InterruptedException {
    for (int i = 0; i < masters * 2; i++) {
      servers.add(clusterNode());
    }
    List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    servers.forEach(s -> command.add("127.0.0.1:" + s.port()));
    command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(create.getInputStream().readAllBytes());
    if (create.waitFor() != 0) {
      throw new IllegalStateException("redis-cli --cluster create failed: " + out);
    }
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (RedisServers.Server s : servers) {
      while (!SharedRedis.with(s.url(), r -> r.clusterInfo()).contains("cluster_state:ok")) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("the cluster did not become ok in 60 s");
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Waits until every replica has finished its first synchronisation with its master ({@code
   * master_link_status:up}). The cluster says {@code ok} before that (Redis 7 delays a diskless
   * full sync by 5 s to gather replicas), and a replica that never synced refuses to take over
   * ("Disconnected from master for longer than allowed"): a master killed in that window keeps its
   * slots for good and the cluster stays down.
   */
  void awaitReplicasInSync() throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (RedisServers.Server s : servers) {
      while (true) {
        String replication = SharedRedis.with(s.url(), r -> r.info("replication"));
        if (!replication.contains("role:slave") || replication.contains("master_link_status:up")) {
          break;
        }
        if (System.nanoTime() > end) {
          throw new IllegalStateException("a replica did not sync in 60 s: " + replication);
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * One cluster node. Its bus port is its port + 10000, which must be free as well: a node whose
   * bus port is taken exits, before or right after opening its port, so it is started again on
   * another one (as is a node whose port another process took since it was picked).
   */
  private static RedisServers.Server clusterNode() throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      RedisServers.Server node =
          RedisServers.Server.with(
              List.of(
                  "--cluster-enabled", "yes",
                  "--cluster-config-file", "nodes.conf",
                  "--cluster-node-timeout", "2000"));
      if (node.port() + 10000 > 65535) {
        node.destroy();
        continue;
      }
      try {
        node.start();
      } catch (IllegalStateException exitedAtStart) {
        node.destroy();
        if (attempt == 10) {
          throw exitedAtStart;
        }
        continue;
      }
      long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!dev.leasehold.storekit.testing.ServerAvailability.listening(
              "127.0.0.1", node.port() + 10000)
          && node.alive()
          && System.nanoTime() < end) {
        Thread.sleep(20);
      }
      if (node.alive()
          && dev.leasehold.storekit.testing.ServerAvailability.listening(
              "127.0.0.1", node.port() + 10000)) {
        // another program listening on that port would pass the check above while the node
        // aborts: it must still be there, and answer, a moment later
        Thread.sleep(100);
        if (node.alive() && answers(node)) {
          return node;
        }
      }
      node.destroy();
      if (attempt == 10) {
        throw new IllegalStateException("no cluster node could start with a free bus port");
      }
    }
  }

  private static boolean answers(RedisServers.Server node) {
    try {
      return "PONG".equals(SharedRedis.with(node.url(), r -> r.ping()));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,...} (every node a seed). */
  String url() {
    return "redis-cluster://"
        + servers.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","));
  }

  StoreSettings settings(String prefix) {
    return new StoreSettings(
        "redis", url(), List.of(), null, null, prefix, Duration.ofSeconds(5), Map.of());
  }

  /** The server that is master of {@code key}'s slot now. */
  RedisServers.Server masterOf(String key) {
    int slot = io.lettuce.core.cluster.SlotHash.getSlot(key);
    for (RedisServers.Server s : servers) {
      try {
        String role = SharedRedis.with(s.url(), r -> r.info("replication"));
        if (!role.contains("role:master")) {
          continue;
        }
        List<Object> slots = SharedRedis.with(s.url(), r -> r.clusterSlots());
        String id = SharedRedis.with(s.url(), r -> r.clusterMyId());
        for (Object range : slots) {
          List<?> r = (List<?>) range;
          long from = (Long) r.get(0);
          long to = (Long) r.get(1);
          List<?> owner = (List<?>) r.get(2);
          if (slot >= from && slot <= to && owner.contains(id)) {
            return s;
          }
        }
      } catch (RuntimeException e) {
        // a dead node: not the master
      }
    }
    throw new IllegalStateException("no master owns slot " + slot);
  }

  /** Each node's view: port, role and CLUSTER NODES line of itself, for failure messages. */
  String describe() {
    StringBuilder sb = new StringBuilder();
    for (RedisServers.Server s : servers) {
      sb.append(s.port()).append(' ');
      try {
        String nodes = SharedRedis.with(s.url(), r -> r.clusterNodes());
        for (String line : nodes.split("\n")) {
          if (line.contains("myself")) {
            sb.append(line.replaceAll("^\\S+ ", "")).append(" | ");
          }
        }
      } catch (RuntimeException e) {
        sb.append("down | ");
      }
    }
    return sb.toString();
  }

  @Override
  public void close() {
    servers.forEach(RedisServers.Server::destroy);
  }
}
