package dev.leasehold.store.redis;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.RedisJournal;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.RedisNodeRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Leases and history on the same Redis node(s); closing it closes the connections. */
final class RedisStoreBackend implements StoreBackend {
  private final LeaseStore leaseStore;
  private final ExecutionLog executionLog;
  private final List<RedisNode> nodes;
  private final int needed;
  private final Pauses pauses;
  private final Forgetting forgetting;
  private final NodeRecords nodeRecords;
  private final Journal journal;
  private final RequestSignals signals;

  /**
   * @param records the pauses and forgetting of {@code leaseStore}, on the same nodes
   */
  <R extends Pauses & Forgetting> RedisStoreBackend(
      LeaseStore leaseStore, R records, List<RedisNode> nodes, LeaseKeys keys, long maxPerJob) {
    this.leaseStore = leaseStore;
    this.pauses = records;
    this.forgetting = records;
    this.nodeRecords = new RedisNodeRecords(nodes, keys);
    this.journal = new RedisJournal(nodes, keys);
    this.signals = new RedisSignals(nodes, keys);
    this.nodes = List.copyOf(nodes);
    this.executionLog = new RedisExecutionLog(nodes, keys, maxPerJob);
    this.needed = RedisNode.majority(nodes);
  }

  @Override
  public LeaseStore leaseStore() {
    return leaseStore;
  }

  @Override
  public ExecutionLog executionLog() {
    return executionLog;
  }

  @Override
  public Optional<Pauses> pauses() {
    return Optional.of(pauses);
  }

  @Override
  public Optional<NodeRecords> nodeRecords() {
    return Optional.of(nodeRecords);
  }

  @Override
  public Optional<Forgetting> forgetting() {
    return Optional.of(forgetting);
  }

  @Override
  public Optional<Journal> journal() {
    return Optional.of(journal);
  }

  /** Pub/sub on every node ({@link RedisSignals}). */
  @Override
  public Optional<RequestSignals> requestSignals() {
    return Optional.of(signals);
  }

  /**
   * PING on every node; fails unless a majority (the one node, for plain Redis) answers. When the
   * nodes that failed could not be connected to at all, the failure says which and why, one line.
   */
  @Override
  public void ping() {
    int answered = 0;
    List<LeaseStoreException> failures = new ArrayList<>();
    for (RedisNode node : nodes) {
      try {
        node.ping();
        answered++;
      } catch (LeaseStoreException e) {
        failures.add(e);
      }
    }
    if (answered >= needed) {
      return;
    }
    if (nodes.size() == 1) {
      throw failures.get(0);
    }
    String summary =
        answered + " of " + nodes.size() + " Redis nodes answered PING, " + needed + " needed";
    if (failures.stream().allMatch(StoreUnreachableException.class::isInstance)) {
      throw new StoreUnreachableException(
          "Redlock store: "
              + summary
              + "; "
              + failures.stream()
                  .map(e -> e.getMessage().replace("Redis store: cannot connect to Redis at ", ""))
                  .collect(Collectors.joining("; ")),
          failures.get(failures.size() - 1));
    }
    throw new LeaseStoreException(summary, failures.get(failures.size() - 1));
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
