package dev.leasehold.app.report;

import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.Replicas;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replicas as {@code nodes} shows them, {@code nodes --json} and {@code GET /nodes} write them,
 * and {@code status} summarizes them: one row per node record, live ones first, each with its state
 * ({@code live} or {@code stale}) and whether its job set differs from the other live replicas'.
 */
public final class NodesReport {
  public static final List<String> COLUMNS =
      List.of(
          "node",
          "state",
          "version",
          "started_at",
          "last_seen",
          "expires_at",
          "job_digest",
          "drift",
          "leases");

  private NodesReport() {}

  public static List<Map<String, Object>> rows(Replicas replicas) {
    List<Map<String, Object>> rows = new ArrayList<>();
    replicas.live().forEach(n -> rows.add(row(n, "live", replicas)));
    replicas.stale().forEach(n -> rows.add(row(n, "stale", replicas)));
    return rows;
  }

  private static Map<String, Object> row(NodeRecord n, String state, Replicas replicas) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("node", n.nodeId());
    row.put("state", state);
    row.put("version", n.version());
    row.put("started_at", FireTimes.format(n.startedAt()));
    row.put("last_seen", FireTimes.format(n.lastSeen()));
    row.put("expires_at", FireTimes.format(n.expiresAt()));
    row.put("job_digest", n.jobDigest());
    row.put("drift", replicas.drifted().contains(n.nodeId()));
    row.put("leases", n.leases());
    return row;
  }

  /** The rows for the text table: the lease list as one comma-separated cell. */
  public static List<Map<String, Object>> forTable(List<Map<String, Object>> rows) {
    return rows.stream()
        .map(
            r -> {
              Map<String, Object> copy = new LinkedHashMap<>(r);
              copy.put("leases", String.join(",", castList(r.get("leases"))));
              copy.put("drift", Boolean.TRUE.equals(r.get("drift")) ? "DRIFT" : "");
              return copy;
            })
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static List<String> castList(Object o) {
    return o instanceof List<?> l ? (List<String>) l : List.of();
  }

  /**
   * The plain-words summary {@code status} and {@code nodes} print under the table: how many
   * replicas are live and stale, "no daemon is alive" when none is, and which replicas run a
   * different job set.
   */
  public static List<String> summary(Replicas replicas) {
    List<String> lines = new ArrayList<>();
    if (replicas.live().isEmpty()) {
      lines.add(
          "no daemon is alive"
              + (replicas.stale().isEmpty()
                  ? " (no node record in the store)"
                  : " (" + replicas.stale().size() + " stale: " + ids(replicas.stale()) + ")"));
    } else {
      lines.add(
          replicas.live().size()
              + " live: "
              + ids(replicas.live())
              + (replicas.stale().isEmpty()
                  ? ""
                  : "; " + replicas.stale().size() + " stale: " + ids(replicas.stale())));
    }
    if (replicas.drift()) {
      lines.add("config drift: " + drift(replicas));
    }
    return lines;
  }

  /** Which replicas run which job set: {@code a, b run hmac:…; c runs hmac:…}. */
  public static String drift(Replicas replicas) {
    List<String> parts = new ArrayList<>();
    replicas
        .byDigest()
        .forEach(
            (digest, nodes) ->
                parts.add(
                    String.join(", ", nodes) + (nodes.size() == 1 ? " runs " : " run ") + digest));
    return "live replicas run different job sets: "
        + String.join("; ", parts)
        + " (differing: "
        + String.join(", ", replicas.drifted())
        + ")";
  }

  private static String ids(List<NodeRecord> nodes) {
    return String.join(", ", nodes.stream().map(NodeRecord::nodeId).toList());
  }
}
