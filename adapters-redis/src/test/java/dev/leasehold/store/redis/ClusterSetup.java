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
      servers.add(
          RedisServers.Server.with(
                  List.of(
                      "--cluster-enabled", "yes",
                      "--cluster-config-file", "nodes.conf",
                      "--cluster-node-timeout", "2000"))
              .start());
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

  @Override
  public void close() {
    servers.forEach(RedisServers.Server::destroy);
  }
}
