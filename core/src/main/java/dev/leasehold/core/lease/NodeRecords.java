package dev.leasehold.core.lease;

import java.time.Duration;
import java.util.List;

/**
 * The port of a store that keeps node records (display only: who runs, which version, which jobs).
 * A store that has it returns it from {@link dev.leasehold.core.store.StoreBackend#nodeRecords}.
 * Not one of the claim's atomic steps: a lost or late record changes what {@code status} shows,
 * never who runs a job. Specified by the {@code NodeCases} of the store kit.
 */
public interface NodeRecords {

  /**
   * Writes {@code node} as its daemon's record, replacing the one it published before: live until
   * {@code node.lastSeen() + ttl}, then stale, and gone on its own after {@link
   * NodeRecord#keepFor}{@code (ttl)} (by the store's own expiry where it has one; else dropped by
   * the next {@link #nodes} that sees it past {@link NodeRecord#keptUntil}).
   */
  void publishNode(NodeRecord node, Duration ttl);

  /**
   * Every node record the store keeps (live or stale, each with its {@link NodeRecord#expiresAt}),
   * sorted by node id; records past {@link NodeRecord#keptUntil} on this client's clock are left
   * out (and may be removed).
   */
  List<NodeRecord> nodes();
}
