package dev.leasehold.app.report;

import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.TerminalText;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The execution history as rows, newest first, for {@code history}. */
public final class HistoryReport {
  public static final List<String> COLUMNS =
      List.of(
          "job",
          "fire_time",
          "node",
          "fence",
          "outcome",
          "attempt",
          "trigger",
          "started_at",
          "finished_at",
          "duration",
          "duration_ms",
          "exit_code",
          "detail",
          "output");

  /**
   * The table shows the duration in words and leaves out the start (the firing is next to it) and
   * the output (see {@link #withOutput}); the JSON has every field.
   */
  public static final List<String> TABLE_COLUMNS =
      List.of(
          "job",
          "fire_time",
          "node",
          "fence",
          "outcome",
          "attempt",
          "trigger",
          "finished_at",
          "duration",
          "exit_code",
          "detail");

  private HistoryReport() {}

  /**
   * One page back in time: at most {@code limit} runs fired strictly before {@code before}, latest
   * firing first ({@link ExecutionLog#before}). A page never ends inside one firing: when the runs
   * of the last firing shown (a paused firing and its catch-up, say) go beyond {@code limit}, they
   * all come, so the oldest {@code fire_time} shown is a cursor for the next page that skips
   * nothing.
   */
  public static List<ExecutionRecord> page(
      ExecutionLog history, String job, Instant before, int limit) {
    List<ExecutionRecord> read = history.before(job, before, limit + SAME_FIRING);
    if (read.size() <= limit) {
      return read;
    }
    Instant last = read.get(limit - 1).fireTime();
    int end = limit;
    while (end < read.size() && read.get(end).fireTime().equals(last)) {
      end++;
    }
    return read.subList(0, end);
  }

  /** Runs of one firing a page reads beyond its limit so as not to split them. */
  private static final int SAME_FIRING = 8;

  public static List<Map<String, Object>> rows(List<ExecutionRecord> records) {
    return records.stream().map(HistoryReport::row).toList();
  }

  private static Map<String, Object> row(ExecutionRecord r) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("job", r.job());
    row.put("fire_time", FireTimes.format(r.fireTime()));
    row.put("node", r.node());
    row.put("fence", r.fence());
    row.put("outcome", r.outcome().label());
    row.put("attempt", r.attempt());
    row.put("trigger", r.trigger().label());
    row.put("started_at", FireTimes.format(r.startedAt()));
    row.put("finished_at", FireTimes.format(r.finishedAt()));
    row.put("duration", Durations.human(r.duration()));
    row.put("duration_ms", r.duration().toMillis());
    row.put("exit_code", r.exitCode());
    row.put("detail", r.detail()); // scrubbed where it is written out (Json, TextTable, withOutput)
    row.put("output", r.output());
    return row;
  }

  /**
   * Each run as a line of its fields, then its output indented under it ({@code | } before every
   * line), runs separated by a blank line: for {@code history --output}.
   */
  public static String withOutput(List<Map<String, Object>> rows) {
    StringBuilder out = new StringBuilder();
    for (Map<String, Object> given : rows) {
      // every field made inert for a terminal; the output keeps its line breaks, one per "| "
      Map<String, Object> row = new java.util.LinkedHashMap<>();
      given.forEach(
          (k, v) ->
              row.put(
                  k,
                  v == null || k.equals("output")
                      ? v
                      : TerminalText.line(Redaction.scrub(String.valueOf(v)))));
      if (!out.isEmpty()) {
        out.append('\n');
      }
      out.append(row.get("fire_time"))
          .append("  ")
          .append(row.get("job"))
          .append("  ")
          .append(row.get("outcome"))
          .append("  node=")
          .append(row.get("node"))
          .append(" fence=")
          .append(row.get("fence"))
          .append(" attempt=")
          .append(row.get("attempt"))
          .append(" trigger=")
          .append(row.get("trigger"))
          .append(" exit=")
          .append(row.get("exit_code") == null ? "-" : row.get("exit_code"))
          .append(" finished=")
          .append(row.get("finished_at"))
          .append(" duration=")
          .append(row.get("duration"))
          .append('\n');
      if (row.get("detail") != null) {
        out.append("  detail: ").append(row.get("detail")).append('\n');
      }
      Object output = row.get("output");
      if (output == null) {
        out.append("  (no output kept)\n");
      } else {
        Redaction.scrub(output.toString())
            .lines()
            .forEach(line -> out.append("  | ").append(TerminalText.line(line)).append('\n'));
      }
    }
    return Redaction.scrub(out.toString());
  }
}
