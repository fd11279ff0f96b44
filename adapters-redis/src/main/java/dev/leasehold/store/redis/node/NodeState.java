package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.Pause;
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
public record NodeState(
    long fence, Instant lastFire, String holder, Instant leaseUntil, boolean held, Pause pause) {

  /** Null when the node never leased the name; the reply's shape is checked ({@link Replies}). */
  public static NodeState of(String where, Object reply) {
    List<?> r = Replies.array(where, reply, -1);
    if (r.isEmpty()) {
      return null;
    }
    Replies.array(where, reply, 10);
    long now = Replies.integer(where, reply, r.get(0));
    long pttl = Replies.integer(where, reply, r.get(1));
    String fence = Replies.millis(where, reply, r.get(2));
    if (fence.isEmpty()) {
      throw Replies.wrong(where, reply, "expected a fence");
    }
    String lastFire = Replies.millis(where, reply, r.get(3));
    String holder = Replies.text(where, reply, r.get(4));
    String stored = Replies.millis(where, reply, r.get(5));
    // PTTL is -2 once the key is gone; 0 means it has under a millisecond left, and the key is
    // still there for the claim and renew scripts (Redis expires a key only after its instant),
    // so 0 is held too, or this read would call free a lease a renewal can still extend
    boolean held = pttl >= 0 || pttl == -1;
    Instant leaseUntil = pttl >= 0 ? Instant.ofEpochMilli(now + pttl) : millis(stored);
    String since = Replies.millis(where, reply, r.get(6));
    Pause pause =
        since.isEmpty()
            ? null
            : new Pause(
                millis(since),
                Replies.text(where, reply, r.get(7)),
                blankToNull(Replies.text(where, reply, r.get(8))),
                "1".equals(Replies.text(where, reply, r.get(9))));
    return new NodeState(
        Long.parseLong(fence), millis(lastFire), blankToNull(holder), leaseUntil, held, pause);
  }

  /**
   * The state of a name across Redlock nodes: the largest fence and watermark any node has; held
   * when at least {@code majority} nodes hold a live lease, until the latest instant a majority
   * still holds it.
   */
  public static Optional<LeaseState> merge(String name, List<NodeState> states, int majority) {
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
    // paused when a majority keeps a pause (pause succeeds only then), since the earliest of them
    List<Pause> pauses = states.stream().map(NodeState::pause).filter(Objects::nonNull).toList();
    Pause pause =
        pauses.size() < majority
            ? null
            : pauses.stream().min(Comparator.comparing(Pause::since)).orElseThrow();
    return Optional.of(new LeaseState(name, holder, leaseUntil, lastFire, fence, held, pause));
  }

  public LeaseState toState(String name) {
    return new LeaseState(name, holder, leaseUntil, lastFire, fence, held, pause);
  }

  private static Instant millis(String value) {
    String s = blankToNull(value);
    return s == null ? null : Instant.ofEpochMilli(Long.parseLong(s));
  }

  private static String blankToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
