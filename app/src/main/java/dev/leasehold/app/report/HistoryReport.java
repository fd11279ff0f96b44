package dev.leasehold.app.report;

import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.store.Redaction;
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
          "trigger",
          "started_at",
          "finished_at",
          "exit_code",
          "detail");

  /** The table leaves out the finish time; the JSON has every field. */
  public static final List<String> TABLE_COLUMNS =
      COLUMNS.stream().filter(column -> !column.equals("finished_at")).toList();

  private HistoryReport() {}

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
    row.put("trigger", r.trigger().label());
    row.put("started_at", FireTimes.format(r.startedAt()));
    row.put("finished_at", FireTimes.format(r.finishedAt()));
    row.put("exit_code", r.exitCode());
    row.put("detail", Redaction.scrub(r.detail()));
    return row;
  }
}
