package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeCodec;
import dev.leasehold.core.lease.NodeRecord;
import io.lettuce.core.SetArgs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Node records on Redis: one string key per node ({@link LeaseKeys#node}) holding {@link
 * NodeCodec}'s line, written with {@code SET ... PX} of {@link NodeRecord#keepFor} so that Redis
 * drops it on its own clock; read by {@code SCAN} and {@code GET}. On Redlock every node is written
 * and read, and the newest record of each node id wins.
 */
public final class RedisNodes {
  private RedisNodes() {}

  /** Writes the record on {@code node}. */
  public static CompletableFuture<String> publish(
      RedisNode node, LeaseKeys keys, NodeRecord record, Duration ttl) {
    NodeRecord published = record.publishedFor(ttl);
    long keepMs = NodeRecord.keepFor(ttl).toMillis();
    String value = NodeCodec.encode(published);
    return node.call(c -> c.set(keys.node(record.nodeId()), value, SetArgs.Builder.px(keepMs)));
  }

  /** Every record {@code node} keeps, not yet past {@link NodeRecord#keptUntil}. Blocking. */
  public static List<NodeRecord> read(RedisNode node, LeaseKeys keys) {
    List<String> found = node.scan(keys.nodePattern());
    List<CompletableFuture<String>> values = new ArrayList<>();
    for (String key : found) {
      values.add(node.call(c -> c.get(key)));
    }
    List<NodeRecord> out = new ArrayList<>();
    Instant now = Instant.now();
    for (CompletableFuture<String> v : values) {
      NodeRecord r = NodeCodec.decode(node.await(v, "GET of a node record"));
      if (r != null && now.isBefore(r.keptUntil())) {
        out.add(r);
      }
    }
    return out;
  }

  /** Writes the record on every node; fails unless a majority took it. */
  public static void publishAll(
      List<RedisNode> nodes, LeaseKeys keys, NodeRecord record, Duration ttl) {
    List<CompletableFuture<String>> writes =
        nodes.stream().map(n -> publish(n, keys, record, ttl)).toList();
    int ok = 0;
    LeaseStoreException last = null;
    for (int i = 0; i < nodes.size(); i++) {
      try {
        nodes.get(i).await(writes.get(i), "node record");
        ok++;
      } catch (LeaseStoreException e) {
        last = e;
      }
    }
    if (ok < RedisNode.majority(nodes)) {
      throw new LeaseStoreException("node record written on " + ok + " nodes only", last);
    }
  }

  /** The newest record of each node id over every node that answers; fails when none does. */
  public static List<NodeRecord> readAll(List<RedisNode> nodes, LeaseKeys keys) {
    Map<String, NodeRecord> newest = new HashMap<>();
    LeaseStoreException last = null;
    int answered = 0;
    for (RedisNode n : nodes) {
      try {
        for (NodeRecord r : read(n, keys)) {
          newest.merge(r.nodeId(), r, (a, b) -> a.lastSeen().isAfter(b.lastSeen()) ? a : b);
        }
        answered++;
      } catch (LeaseStoreException e) {
        last = e;
      }
    }
    if (answered == 0) {
      throw last;
    }
    return sorted(newest.values());
  }

  public static List<NodeRecord> sorted(java.util.Collection<NodeRecord> records) {
    return records.stream().sorted(Comparator.comparing(NodeRecord::nodeId)).toList();
  }
}
