package dev.leasehold.app.report;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One job, as {@code GET /jobs/{name}} answers: its {@code status --json} row (schedule, next
 * firing, holder, lease expiry, last firing, fence, pause), its {@code state} in one word, its last
 * runs as {@code history --json} rows, newest first, and its {@code record} over its latest {@value
 * #RECORD_WINDOW} history records (see {@link #record}).
 */
public final class JobReport {
  /** How many of the job's runs come with it. */
  public static final int LAST_RUNS = 10;

  /** How many of the job's latest history records its {@code record} is computed over. */
  public static final int RECORD_WINDOW = 100;

  private JobReport() {}

  /** The job's report, or empty when no job of that name is configured. */
  public static Optional<Map<String, Object>> of(
      DaemonConfig config, LeaseStore store, ExecutionLog history, String name, Instant now) {
    Optional<JobConfig> job = config.job(name);
    if (job.isEmpty()) {
      return Optional.empty();
    }
    LeaseState lease = store.inspect(name).orElse(null);
    Map<String, Object> out = new LinkedHashMap<>(StatusReport.row(job.get(), lease, now));
    out.put("state", state(lease));
    List<ExecutionRecord> window = history.recent(name, RECORD_WINDOW);
    out.put("last_runs", HistoryReport.rows(window.subList(0, Math.min(LAST_RUNS, window.size()))));
    out.put("record", record(window));
    return Optional.of(out);
  }

  /**
   * The job's track record over {@code runs} (newest first): how many of them ran (ended {@code
   * succeeded}, {@code failed}, {@code timed-out} or {@code lease-lost}; skips, misses, pauses,
   * resets and runs stopped as {@code replaced} are not counted), the share that succeeded, the
   * firing of the last success, and {@code failing_since}: when the latest run failed, the firing
   * of the first failure since the last success (of the oldest run read when none succeeded), else
   * {@code null}.
   */
  static Map<String, Object> record(List<ExecutionRecord> runs) {
    int ran = 0;
    int succeeded = 0;
    ExecutionRecord lastSuccess = null;
    ExecutionRecord firstFailure = null;
    boolean streak = true;
    for (ExecutionRecord r : runs) {
      if (!RAN.contains(r.outcome())) {
        continue;
      }
      ran++;
      if (r.outcome() == Outcome.SUCCEEDED) {
        succeeded++;
        if (lastSuccess == null) {
          lastSuccess = r;
        }
        streak = false;
      } else if (streak) {
        firstFailure = r;
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("window", runs.size());
    out.put("runs", ran);
    out.put("succeeded", succeeded);
    out.put("success_rate", ran == 0 ? null : Math.round(1000.0 * succeeded / ran) / 10.0);
    out.put("last_success", lastSuccess == null ? null : FireTimes.format(lastSuccess.fireTime()));
    out.put(
        "failing_since", firstFailure == null ? null : FireTimes.format(firstFailure.fireTime()));
    return out;
  }

  private static final Set<Outcome> RAN =
      EnumSet.of(Outcome.SUCCEEDED, Outcome.FAILED, Outcome.TIMED_OUT, Outcome.LEASE_LOST);

  /** {@code paused}, {@code running} (a live lease) or {@code idle}. */
  static String state(LeaseState lease) {
    if (lease == null) {
      return "idle";
    }
    if (lease.pause() != null) {
      return "paused";
    }
    return lease.held() ? "running" : "idle";
  }
}
