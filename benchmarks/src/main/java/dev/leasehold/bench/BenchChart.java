package dev.leasehold.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Leasehold next to ShedLock from one run of {@code scripts/bench.sh}: the claim cycle per store
 * (mean time of {@code lh_claimRelease} and {@code shedlock_lockUnlock}, one thread) and the burst
 * of {@link LeaseBench#BURST} names due at once ({@code burst_*}, single shot, mean of the
 * iterations). Prints a Markdown table of the ratios and writes an SVG chart (plain text, no
 * toolchain): one group of bars per store, each group scaled to its own longest bar, every bar
 * labelled with its value.
 *
 * <p>Usage: {@code BenchChart threads-1.json burst.json chart.svg [footnote]}
 */
public final class BenchChart {
  private static final String[] CYCLE = {"lh_claimRelease", "shedlock_lockUnlock"};
  private static final String[] BURSTS = {
    "burst_lh_claimAll", "burst_lh_pool", "burst_shedlock_pool"
  };
  private static final Map<String, String> LABELS =
      Map.of(
          "lh_claimRelease", "Leasehold claim + release",
          "shedlock_lockUnlock", "ShedLock lock + unlock",
          "burst_lh_claimAll", "Leasehold claimAll (one call)",
          "burst_lh_pool", "Leasehold, 16 threads",
          "burst_shedlock_pool", "ShedLock, 16 threads");
  private static final Map<String, String> COLOURS =
      Map.of(
          "lh_claimRelease", "#2b6cb0",
          "shedlock_lockUnlock", "#a0aec0",
          "burst_lh_claimAll", "#2b6cb0",
          "burst_lh_pool", "#63b3ed",
          "burst_shedlock_pool", "#a0aec0");

  private BenchChart() {}

  public static void main(String[] args) throws IOException {
    Map<String, Map<String, Double>> cycle = read(args[0]);
    Map<String, Map<String, Double>> burst =
        new File(args[1]).isFile() ? read(args[1]) : new TreeMap<>();
    printTables(cycle, burst);
    StringBuilder svg = new StringBuilder();
    int y = 40;
    List<String> body = new ArrayList<>();
    y =
        panel(
            body, y, "Claim cycle, 1 thread: mean µs per firing (shorter is faster)", cycle, CYCLE);
    y = panel(body, y + 20, "1,000 names due at one instant: ms to take them all", burst, BURSTS);
    body.add(
        text(
            10,
            y + 4,
            "Each store's bars scaled to its longest. " + (args.length > 3 ? args[3] : ""),
            "fill=\"#555\""));
    y += 10;
    svg.append(
            String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"%d\""
                    + " font-family=\"sans-serif\" font-size=\"12\">\n",
                y + 10))
        .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
        .append(
            "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Leasehold and"
                + " ShedLock, same servers, same run (scripts/bench.sh)</text>\n");
    body.forEach(svg::append);
    svg.append("</svg>\n");
    Files.writeString(Path.of(args[2]), svg);
  }

  /** store -> benchmark method -> mean score (the JSON's unit). */
  private static Map<String, Map<String, Double>> read(String file) throws IOException {
    Map<String, Map<String, Double>> out = new TreeMap<>();
    for (JsonNode run : new ObjectMapper().readTree(new File(file))) {
      if (run.get("threads").asInt() != 1) {
        continue;
      }
      String benchmark = run.get("benchmark").asText();
      String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      String type = benchmark.replaceAll(".*\\.(\\w+)Bench\\.\\w+$", "$1");
      JsonNode database = run.path("params").get("database");
      String store = database == null ? type : database.asText();
      JsonNode shedlockOn = run.path("params").get("shedlockOn");
      if (shedlockOn != null) {
        store += ", ShedLock on " + shedlockOn.asText();
      }
      out.computeIfAbsent(store, k -> new LinkedHashMap<>())
          .put(method, run.get("primaryMetric").get("score").asDouble());
    }
    return out;
  }

  private static void printTables(
      Map<String, Map<String, Double>> cycle, Map<String, Map<String, Double>> burst) {
    StringBuilder out = new StringBuilder();
    out.append("\n| store | Leasehold claim + release, mean µs | ShedLock lock + unlock, mean µs")
        .append(" | Leasehold's rate × ShedLock's |\n|---|--:|--:|--:|\n");
    cycle.forEach(
        (store, m) -> {
          Double lh = m.get(CYCLE[0]);
          Double shed = m.get(CYCLE[1]);
          if (lh != null && shed != null) {
            out.append(
                String.format(
                    Locale.ROOT, "| %s | %.0f | %.0f | %.2f × |%n", store, lh, shed, shed / lh));
          }
        });
    out.append("\n| store | Leasehold claimAll, ms | Leasehold 16 threads, ms")
        .append(" | ShedLock 16 threads, ms | claimAll's time × ShedLock's |\n")
        .append("|---|--:|--:|--:|--:|\n");
    burst.forEach(
        (store, m) -> {
          Double all = m.get(BURSTS[0]);
          Double pool = m.get(BURSTS[1]);
          Double shed = m.get(BURSTS[2]);
          out.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s | %s | %s |%n",
                  store,
                  number(all),
                  number(pool),
                  number(shed),
                  all == null || shed == null
                      ? "-"
                      : String.format(Locale.ROOT, "%.2f ×", all / shed)));
        });
    System.out.print(out);
  }

  private static String number(Double value) {
    return value == null ? "-" : String.format(Locale.ROOT, "%.0f", value);
  }

  private static int panel(
      List<String> out,
      int y,
      String title,
      Map<String, Map<String, Double>> data,
      String[] methods) {
    out.add(text(10, y, title, "font-weight=\"bold\""));
    y += 10;
    int legendX = 10;
    for (String method : methods) {
      out.add(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
              legendX,
              y,
              COLOURS.get(method)));
      out.add(text(legendX + 14, y + 9, LABELS.get(method), ""));
      legendX += 24 + LABELS.get(method).length() * 7;
    }
    y += 22;
    for (Map.Entry<String, Map<String, Double>> store : data.entrySet()) {
      double max =
          store.getValue().entrySet().stream()
              .filter(e -> List.of(methods).contains(e.getKey()))
              .mapToDouble(Map.Entry::getValue)
              .max()
              .orElse(0);
      if (max <= 0) {
        continue;
      }
      out.add(text(10, y + 12, store.getKey(), ""));
      for (String method : methods) {
        Double value = store.getValue().get(method);
        if (value == null) {
          continue;
        }
        int width = (int) Math.max(1, Math.round(400 * value / max));
        out.add(
            String.format(
                Locale.ROOT,
                "<rect x=\"110\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>\n",
                y,
                width,
                COLOURS.get(method)));
        out.add(text(116 + width, y + 11, number(value) + versus(store.getValue(), method), ""));
        y += 16;
      }
      y += 8;
    }
    return y;
  }

  /** For Leasehold's first bar: its ratio to ShedLock's in the same store. */
  private static String versus(Map<String, Double> store, String method) {
    Double lh = store.get(method);
    if (method.equals(CYCLE[0]) && store.get(CYCLE[1]) != null) {
      return String.format(Locale.ROOT, "  (rate %.2f × ShedLock's)", store.get(CYCLE[1]) / lh);
    }
    if (method.equals(BURSTS[0]) && store.get(BURSTS[2]) != null) {
      return String.format(Locale.ROOT, "  (time %.2f × ShedLock's)", lh / store.get(BURSTS[2]));
    }
    return "";
  }

  private static String text(int x, int y, String text, String attributes) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%d\" y=\"%d\" %s>%s</text>\n",
        x,
        y,
        attributes,
        text.replace("&", "&amp;").replace("<", "&lt;"));
  }
}
