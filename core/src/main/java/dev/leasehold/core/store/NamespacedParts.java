package dev.leasehold.core.store;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The ports beside the leases in one {@link Namespace}, each mapping names as {@link
 * NamespacedLeaseStore} does: every call stays one call of the store underneath.
 */
final class NamespacedParts {
  private NamespacedParts() {}

  static Pauses pauses(Pauses delegate, Namespace namespace) {
    return new Pauses() {
      @Override
      public Pause pause(String name, String by, String reason, boolean stopRunning) {
        return delegate.pause(namespace.toStore(name), by, reason, stopRunning);
      }

      @Override
      public boolean resume(String name, boolean catchUp) {
        return delegate.resume(namespace.toStore(name), catchUp);
      }
    };
  }

  static Forgetting forgetting(Forgetting delegate, Namespace namespace) {
    return name -> delegate.forget(namespace.toStore(name));
  }

  /** Records under the namespaced id: two services' replicas never meet, nor drift apart. */
  static NodeRecords nodeRecords(NodeRecords delegate, Namespace namespace) {
    return new NodeRecords() {
      @Override
      public void publishNode(NodeRecord node, Duration ttl) {
        delegate.publishNode(node.withNodeId(namespace.nodeToStore(node.nodeId())), ttl);
      }

      @Override
      public List<NodeRecord> nodes() {
        return delegate.nodes().stream()
            .flatMap(n -> namespace.fromStore(n.nodeId()).map(n::withNodeId).stream())
            .toList();
      }
    };
  }

  /**
   * Streams and keys under the namespaced name; entries come back with the stream's own name, so
   * two services never read, prune or share each other's entries and keys.
   */
  static Journal journal(Journal delegate, Namespace namespace) {
    return new Journal() {
      @Override
      public JournalEntry append(String stream, Instant at, String body) {
        JournalEntry e = delegate.append(toStore("journal stream", stream), at, body);
        return new JournalEntry(stream, e.id(), e.at(), e.body());
      }

      @Override
      public List<JournalEntry> recent(String stream, int limit) {
        return delegate.recent(toStore("journal stream", stream), limit).stream()
            .map(e -> new JournalEntry(stream, e.id(), e.at(), e.body()))
            .toList();
      }

      @Override
      public int prune(String stream, Instant before) {
        return delegate.prune(toStore("journal stream", stream), before);
      }

      @Override
      public String putIfAbsent(String key, String value) {
        return delegate.putIfAbsent(toStore("journal key", key), value);
      }

      private String toStore(String what, String name) {
        String problem = namespace.nameProblem(name);
        if (problem != null) {
          throw new IllegalArgumentException(what + " " + problem);
        }
        return namespace.toStore(name);
      }
    };
  }
}
