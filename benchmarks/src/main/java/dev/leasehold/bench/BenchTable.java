package dev.leasehold.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prints JMH's JSON results (sample mode, microseconds) as one Markdown table per store: each
 * benchmark with its p50, p99 and operations per second, per thread count. In sample mode JMH
 * reports the mean time of an operation; ops/s is {@code threads / mean} (every thread runs one
 * operation after the other, so this is what the run achieved).
 *
 * <p>Usage: {@code BenchTable result.json...}
 */
public final class BenchTable {
  private static final Map<String, String> LABELS =
      Map.ofEntries(
          Map.entry("lh_claimRelease", "Leasehold claim + release"),
          Map.entry("lh_claim", "Leasehold claim (alone)"),
          Map.entry("lh_acquireRelease", "Leasehold acquire + release"),
          Map.entry("lh_renew", "Leasehold renew"),
          Map.entry("shedlock_lockUnlock", "ShedLock lock + unlock"),
          Map.entry("raw_ping", "raw PING / ping command"),
          Map.entry("raw_select1", "raw SELECT 1"),
          Map.entry("raw_update", "raw UPDATE one row"),
          Map.entry("raw_setNxDel", "raw SET NX PX + DEL"),
          Map.entry("raw_upsert", "raw findOneAndUpdate upsert"),
          Map.entry("raw_put", "raw put of one key (etcd)"),
          Map.entry("raw_setData", "raw setData of one node (ZooKeeper)"));

  private BenchTable() {}

  public static void main(String[] args) throws IOException {
    // store -> label -> threads -> cell
    Map<String, Map<String, Map<Integer, String>>> tables = new TreeMap<>();
    ObjectMapper json = new ObjectMapper();
    for (String file : args) {
      for (JsonNode run : json.readTree(new File(file))) {
        String benchmark = run.get("benchmark").asText();
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        String label = LABELS.getOrDefault(method, method);
        int threads = run.get("threads").asInt();
        tables
            .computeIfAbsent(store(benchmark, run.path("params")), k -> new TreeMap<>())
            .computeIfAbsent(label, k -> new TreeMap<>())
            .put(threads, cell(run.get("mode").asText(), threads, run.get("primaryMetric")));
      }
    }
    tables.forEach(BenchTable::print);
  }

  private static String store(String benchmark, JsonNode params) {
    String type = benchmark.replaceAll(".*\\.(\\w+)Bench\\.\\w+$", "$1");
    JsonNode database = params.get("database");
    String store = database == null ? type : type + " " + database.asText();
    JsonNode shedlockOn = params.get("shedlockOn");
    return shedlockOn == null ? store : store + ", ShedLock on " + shedlockOn.asText();
  }

  private static String cell(String mode, int threads, JsonNode metric) {
    double score = metric.get("score").asDouble();
    if (!mode.equals("sample")) {
      return String.format(
          Locale.ROOT, "- | - | %,.0f %s", score, metric.get("scoreUnit").asText());
    }
    JsonNode p = metric.get("scorePercentiles");
    double opsPerSecond = threads * 1_000_000.0 / score;
    return String.format(
        Locale.ROOT,
        "%s | %s | %,.0f",
        micros(p.get("50.0").asDouble()),
        micros(p.get("99.0").asDouble()),
        opsPerSecond);
  }

  private static String micros(double us) {
    return us < 100
        ? String.format(Locale.ROOT, "%.1f", us)
        : String.format(Locale.ROOT, "%.0f", us);
  }

  private static void print(String store, Map<String, Map<Integer, String>> rows) {
    int[] threadCounts =
        rows.values().stream()
            .flatMap(m -> m.keySet().stream())
            .distinct()
            .sorted()
            .mapToInt(Integer::intValue)
            .toArray();
    StringBuilder out = new StringBuilder("\n### ").append(store).append("\n\n| op |");
    StringBuilder rule = new StringBuilder("|---|");
    for (int t : threadCounts) {
      out.append(String.format(" %dt p50 µs | %dt p99 µs | %dt ops/s |", t, t, t));
      rule.append("--:|--:|--:|");
    }
    out.append('\n').append(rule).append('\n');
    rows.forEach(
        (label, cells) -> {
          out.append("| ").append(label).append(" |");
          for (int t : threadCounts) {
            out.append(' ').append(cells.getOrDefault(t, "- | - | -")).append(" |");
          }
          out.append('\n');
        });
    System.out.print(out);
  }
}
