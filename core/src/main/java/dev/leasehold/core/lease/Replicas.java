package dev.leasehold.core.lease;

import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The node records of one store as an operator sees them at one instant: which replicas are live,
 * which are stale, and whether the live ones run different job sets (<b>drift</b>).
 *
 * @param live the records live at {@code at}, sorted by node id
 * @param stale the records kept but expired at {@code at}, sorted by node id
 * @param drifted the live replicas whose job digest differs from the most common one (ties: the
 *     digest of the first node id in order); empty when all live replicas agree
 */
public record Replicas(
    Instant at, List<NodeRecord> live, List<NodeRecord> stale, List<String> drifted) {

  public Replicas {
    live = List.copyOf(live);
    stale = List.copyOf(stale);
    drifted = List.copyOf(drifted);
  }

  /** {@code records} (as {@link LeaseStore#nodes} returns them) judged at {@code now}. */
  public static Replicas of(List<NodeRecord> records, Instant now) {
    List<NodeRecord> sorted =
        records.stream().sorted(Comparator.comparing(NodeRecord::nodeId)).toList();
    List<NodeRecord> live = sorted.stream().filter(n -> n.liveAt(now)).toList();
    List<NodeRecord> stale =
        sorted.stream()
            .filter(n -> !n.liveAt(now) && n.expiresAt() != null && now.isBefore(n.keptUntil()))
            .toList();
    Map<String, Long> counts =
        live.stream()
            .collect(
                Collectors.groupingBy(
                    NodeRecord::jobDigest, LinkedHashMap::new, Collectors.counting()));
    List<String> drifted = List.of();
    if (counts.size() > 1) {
      String common =
          counts.entrySet().stream()
              .max(Map.Entry.<String, Long>comparingByValue())
              .map(Map.Entry::getKey)
              .orElseThrow();
      drifted =
          live.stream().filter(n -> !n.jobDigest().equals(common)).map(NodeRecord::nodeId).toList();
    }
    return new Replicas(now, live, stale, drifted);
  }

  /** Whether live replicas run different job sets. */
  public boolean drift() {
    return !drifted.isEmpty();
  }

  /** The live replicas by digest, for naming which replicas run which job set. */
  public Map<String, List<String>> byDigest() {
    return live.stream()
        .collect(
            Collectors.groupingBy(
                NodeRecord::jobDigest,
                java.util.TreeMap::new,
                Collectors.mapping(NodeRecord::nodeId, Collectors.toList())));
  }
}
