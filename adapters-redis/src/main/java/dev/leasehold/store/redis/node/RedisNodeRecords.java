package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.NodeRecords;
import java.time.Duration;
import java.util.List;

/**
 * Node records on Redis ({@link RedisNodes}): one {@code SET ... PX} per Redis node; on one server
 * it must take the record, on a Redlock's masters a majority must.
 */
public final class RedisNodeRecords implements NodeRecords {
  private final List<RedisNode> nodes;
  private final LeaseKeys keys;

  public RedisNodeRecords(List<RedisNode> nodes, LeaseKeys keys) {
    this.nodes = List.copyOf(nodes);
    this.keys = keys;
  }

  @Override
  public void publishNode(NodeRecord record, Duration ttl) {
    if (nodes.size() == 1) {
      RedisNode node = nodes.get(0);
      node.await(RedisNodes.publish(node, keys, record, ttl), "node record");
    } else {
      RedisNodes.publishAll(nodes, keys, record, ttl);
    }
  }

  @Override
  public List<NodeRecord> nodes() {
    if (nodes.size() == 1) {
      return RedisNodes.sorted(RedisNodes.read(nodes.get(0), keys));
    }
    return RedisNodes.readAll(nodes, keys);
  }
}
