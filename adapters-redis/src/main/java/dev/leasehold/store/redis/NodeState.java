package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseState;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one node stores for one name, decoded from {@link LuaScript#INSPECT}. {@code held} and the
 * expiry of a live lease come from the key's PTTL and the server's TIME, read in the same script,
 * so both are on the server's clock.
 */
record NodeState(long fence, Instant lastFire, String holder, Instant leaseUntil, boolean held) {

  /** Null when the node never leased the name. */
  static NodeState of(List<Object> reply) {
    if (reply.isEmpty()) {
      return null;
    }
    long now = (Long) reply.get(0);
    long pttl = (Long) reply.get(1);
    boolean held = pttl > 0 || pttl == -1;
    Instant stored = millis(reply.get(5));
    Instant leaseUntil = pttl > 0 ? Instant.ofEpochMilli(now + pttl) : stored;
    return new NodeState(
        Long.parseLong((String) reply.get(2)),
        millis(reply.get(3)),
        blankToNull(reply.get(4)),
        leaseUntil,
        held);
  }

  /**
   * The state of a name across Redlock nodes: the largest fence and watermark any node has; held
   * when at least {@code majority} nodes hold a live lease, until the latest instant a majority
   * still holds it.
   */
  static Optional<LeaseState> merge(String name, List<NodeState> states, int majority) {
    if (states.isEmpty()) {
      return Optional.empty();
    }
    long fence = states.stream().mapToLong(NodeState::fence).max().orElseThrow();
    Instant lastFire =
        states.stream()
            .map(NodeState::lastFire)
            .filter(Objects::nonNull)
            .max(Comparator.naturalOrder())
            .orElse(null);
    List<NodeState> live = states.stream().filter(NodeState::held).toList();
    boolean held = live.size() >= majority;
    List<NodeState> source = held ? live : states;
    List<Instant> until =
        source.stream()
            .map(NodeState::leaseUntil)
            .filter(Objects::nonNull)
            .sorted(Comparator.reverseOrder())
            .toList();
    Instant leaseUntil = until.isEmpty() ? null : until.get(held ? majority - 1 : 0);
    String holder =
        source.stream()
            .max(Comparator.comparingLong(NodeState::fence))
            .map(NodeState::holder)
            .orElse(null);
    return Optional.of(new LeaseState(name, holder, leaseUntil, lastFire, fence, held));
  }

  LeaseState toState(String name) {
    return new LeaseState(name, holder, leaseUntil, lastFire, fence, held);
  }

  private static Instant millis(Object value) {
    String s = blankToNull(value);
    return s == null ? null : Instant.ofEpochMilli(Long.parseLong(s));
  }

  private static String blankToNull(Object value) {
    String s = (String) value;
    return s == null || s.isEmpty() ? null : s;
  }
}
