package dev.leasehold.store.redis;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import java.util.List;

/** Leases and history on the same Redis node(s); closing it closes the connections. */
final class RedisStoreBackend implements StoreBackend {
  private final LeaseStore leaseStore;
  private final ExecutionLog executionLog;
  private final List<RedisNode> nodes;
  private final int needed;

  RedisStoreBackend(LeaseStore leaseStore, List<RedisNode> nodes, LeaseKeys keys, long maxPerJob) {
    this.leaseStore = leaseStore;
    this.nodes = List.copyOf(nodes);
    this.executionLog = new RedisExecutionLog(nodes, keys, maxPerJob);
    this.needed = nodes.size() / 2 + 1;
  }

  @Override
  public LeaseStore leaseStore() {
    return leaseStore;
  }

  @Override
  public ExecutionLog executionLog() {
    return executionLog;
  }

  /** PING on every node; fails unless a majority (the one node, for plain Redis) answers. */
  @Override
  public void ping() {
    int answered = 0;
    LeaseStoreException last = null;
    for (RedisNode node : nodes) {
      try {
        node.ping();
        answered++;
      } catch (LeaseStoreException e) {
        last = e;
      }
    }
    if (answered < needed) {
      throw new LeaseStoreException(
          answered + " of " + nodes.size() + " Redis nodes answered PING, " + needed + " needed",
          last);
    }
  }

  @Override
  public void close() {
    leaseStore.close();
  }

  @Override
  public String toString() {
    return leaseStore.toString();
  }
}
