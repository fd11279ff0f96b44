package dev.leasehold.app.admin;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.reload.ConfigReload;
import dev.leasehold.app.report.CheckReport;
import dev.leasehold.app.report.NodesReport;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.app.wiring.StoreWords;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.schedule.AfterSchedule;
import dev.leasehold.core.schedule.CronSchedule;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The data of the status page, {@code GET /api/status}: one JSON snapshot that {@code status.js}
 * renders section by section (header, problems, jobs, replicas, nodes, history). Three store round
 * trips per snapshot ({@link LeaseStore#list()}, {@link LeaseStore#nodes()} and one {@link
 * ExecutionLog#recent}), and a fourth, of the request queue, when a job has {@code after} (its
 * waiting steps); a store that does not answer gives a snapshot that says so in {@code problems}
 * instead of an error. The history filters ({@code job}, {@code outcome}) are the page's own query
 * parameters, so a filtered view is a link.
 *
 * <p>A new section: add its key to {@link #snapshot} here and its render function to {@code
 * SECTIONS} in {@code status.js}.
 */
final class StatusView {
  static final int REFRESH_SECONDS = 10;
  static final int HISTORY_READ = 500;
  static final int HISTORY_SHOWN = 50;
  static final int STRIP = 12;
  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_INSTANT;

  private final Supplier<DaemonConfig> configs;
  private final Optional<ConfigReload> reload;
  private DaemonConfig config;
  private final LeaseStore store;
  private final Optional<NodeRecords> nodeRecords;
  private final ExecutionLog history;
  private final StoreBackend backend;
  private final StoreHealth health;
  private final boolean triggerEnabled;

  StatusView(
      DaemonConfig config,
      StoreBackend store,
      ExecutionLog history,
      StoreHealth health,
      boolean triggerEnabled) {
    this(() -> config, Optional.empty(), store, history, health, triggerEnabled);
  }

  /**
   * @param configs the configuration in force (it changes with each reload applied)
   * @param reload the daemon's reload, whose last verdict the page shows
   */
  StatusView(
      Supplier<DaemonConfig> configs,
      Optional<ConfigReload> reload,
      StoreBackend store,
      ExecutionLog history,
      StoreHealth health,
      boolean triggerEnabled) {
    this.configs = configs;
    this.reload = reload;
    this.store = store.leaseStore();
    this.backend = store;
    this.nodeRecords = store.nodeRecords();
    this.history = history;
    this.health = health;
    this.triggerEnabled = triggerEnabled;
  }

  /**
   * @param jobFilter only this job's history, or {@code null}
   * @param outcomeFilter only this outcome label in the history, or {@code null}
   */
  synchronized Map<String, Object> snapshot(String jobFilter, String outcomeFilter, Instant now) {
    config = configs.get();
    String job = config.job(blankToNull(jobFilter)).map(JobConfig::name).orElse(null);
    Outcome outcome = outcome(outcomeFilter);
    List<String> problems = new ArrayList<>();
    Map<String, LeaseState> leases = new TreeMap<>();
    try {
      leases.putAll(
          store.list().stream()
              .collect(Collectors.toMap(LeaseState::name, Function.identity(), (a, b) -> a)));
    } catch (RuntimeException e) {
      problems.add("leases could not be read: " + StoreWords.summary(e));
    }
    List<ExecutionRecord> recent = List.of();
    try {
      recent = history.recent(null, HISTORY_READ);
    } catch (RuntimeException e) {
      problems.add("history could not be read: " + StoreWords.summary(e));
    }
    Map<String, List<Instant>> waiting = Map.of();
    try {
      waiting = StatusReport.waitingChildren(config, history, now);
    } catch (RuntimeException e) {
      problems.add("waiting chain steps could not be read: " + StoreWords.summary(e));
    }
    Map<String, Object> replicas = replicas(problems, now);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("node", config.node());
    out.put("store", StoreWords.describe(config.store()));
    out.put("store_answering", problems.isEmpty() && health.healthy());
    out.put("refresh_seconds", REFRESH_SECONDS);
    out.put("trigger_enabled", triggerEnabled);
    out.put("problems", problems);
    out.put("jobs", jobs(leases, recent, waiting, now));
    out.put("nodes", nodes(leases, recent));
    out.put("replicas", replicas);
    out.put("checks", CheckReport.rows(config, backend, now));
    out.put("history", history(recent, job, outcome));
    out.put("reload", reload());
    return out;
  }

  /**
   * The last reloads: {@code last_applied} (a time or {@code null}) and {@code last_failure}
   * ({@code {time, reason}} or {@code null}); the page shows a failure newer than the last applied
   * reload as a problem.
   */
  private Map<String, Object> reload() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(
        "last_applied",
        reload.flatMap(ConfigReload::lastApplied).map(t -> time(t, null)).orElse(null));
    out.put(
        "last_failure",
        reload
            .flatMap(ConfigReload::lastFailure)
            .map(
                f -> {
                  Map<String, Object> failure = new LinkedHashMap<>();
                  failure.put("time", time(f.at(), null));
                  failure.put("reason", f.reason());
                  return failure;
                })
            .orElse(null));
    return out;
  }

  private List<Map<String, Object>> jobs(
      Map<String, LeaseState> leases,
      List<ExecutionRecord> recent,
      Map<String, List<Instant>> waiting,
      Instant now) {
    Map<String, List<ExecutionRecord>> byJob =
        recent.stream().collect(Collectors.groupingBy(ExecutionRecord::job));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (JobConfig job : config.jobs()) {
      ZoneId zone =
          ScheduleWords.base(job.schedule()) instanceof CronSchedule cron
              ? cron.zone()
              : (ZoneId) ZoneOffset.UTC;
      LeaseState lease = leases.get(job.name());
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", job.name());
      row.put("schedule", ScheduleWords.describe(job.schedule()));
      row.put("zone", zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId());
      row.put("next", job.schedule().nextAfter(now).map(next -> time(next, zone)).orElse(null));
      row.put("overlap", job.overlap().label());
      row.put(
          "buffered", StatusReport.buffered(job, lease, now).map(b -> time(b, zone)).orElse(null));
      row.put("after", job.schedule() instanceof AfterSchedule a ? a.upstream() : null);
      row.put(
          "waiting",
          waiting.getOrDefault(job.name(), List.of()).stream().map(w -> time(w, zone)).toList());
      row.put("holder", lease == null ? "never leased" : lease.currentHolder().orElse("free"));
      row.put(
          "lease_until",
          lease == null || lease.leaseUntil() == null ? null : time(lease.leaseUntil(), null));
      row.put("fence", lease == null ? 0 : lease.fence());
      row.put(
          "paused",
          lease == null || lease.pause() == null ? null : StatusReport.paused(lease.pause()));
      row.put(
          "recent",
          byJob.getOrDefault(job.name(), List.of()).stream()
              .limit(STRIP)
              .map(
                  r ->
                      Map.of(
                          "outcome",
                          r.outcome().label(),
                          "title",
                          ISO.format(r.fireTime()) + " on " + r.node() + ", fence " + r.fence()))
              .toList());
      rows.add(row);
    }
    return rows;
  }

  /**
   * The live and stale replicas from their node records ({@link NodesReport}), the summary in plain
   * words ("no daemon is alive" when none is) and the drift between their job sets.
   */
  private Map<String, Object> replicas(List<String> problems, Instant now) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("supported", nodeRecords.isPresent());
    if (nodeRecords.isEmpty()) {
      return out;
    }
    try {
      Replicas replicas = Replicas.of(nodeRecords.get().nodes(), now);
      out.put("live", replicas.live().size());
      out.put("stale", replicas.stale().size());
      out.put("drift", replicas.drift());
      out.put("drifted", replicas.drifted());
      out.put("summary", NodesReport.summary(replicas));
      out.put("rows", NodesReport.rows(replicas));
    } catch (RuntimeException e) {
      problems.add("node records could not be read: " + StoreWords.summary(e));
    }
    return out;
  }

  private List<Map<String, Object>> nodes(
      Map<String, LeaseState> leases, List<ExecutionRecord> recent) {
    Map<String, NodeRow> nodes = new TreeMap<>();
    for (ExecutionRecord r : recent) {
      NodeRow row = nodes.computeIfAbsent(r.node(), NodeRow::new);
      row.runs++;
      if (row.lastStarted == null || r.startedAt().isAfter(row.lastStarted)) {
        row.lastStarted = r.startedAt();
      }
    }
    for (LeaseState lease : leases.values()) {
      lease
          .currentHolder()
          .ifPresent(holder -> nodes.computeIfAbsent(holder, NodeRow::new).holds.add(lease.name()));
    }
    return nodes.values().stream()
        .sorted(
            Comparator.comparing(
                (NodeRow n) -> n.lastStarted == null ? Instant.MIN : n.lastStarted,
                Comparator.reverseOrder()))
        .map(
            n -> {
              Map<String, Object> row = new LinkedHashMap<>();
              row.put("node", n.node);
              row.put("this_node", n.node.equals(config.node()));
              row.put("last_started", n.lastStarted == null ? null : time(n.lastStarted, null));
              row.put("runs", n.runs);
              row.put("holds", n.holds);
              return row;
            })
        .toList();
  }

  private Map<String, Object> history(List<ExecutionRecord> recent, String job, Outcome outcome) {
    List<Map<String, Object>> rows =
        recent.stream()
            .filter(r -> job == null || r.job().equals(job))
            .filter(r -> outcome == null || r.outcome() == outcome)
            .limit(HISTORY_SHOWN)
            .map(StatusView::historyRow)
            .toList();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("job", job);
    out.put("outcome", outcome == null ? null : outcome.label());
    out.put("job_names", config.jobNames());
    out.put("outcomes", Arrays.stream(Outcome.values()).map(Outcome::label).toList());
    out.put("rows", rows);
    return out;
  }

  private static Map<String, Object> historyRow(ExecutionRecord r) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("job", r.job());
    row.put("fire_time", time(r.fireTime(), null));
    row.put("node", r.node());
    row.put("fence", r.fence());
    row.put("outcome", r.outcome().label());
    row.put("trigger", r.trigger().label());
    row.put("duration", Durations.format(Duration.between(r.startedAt(), r.finishedAt())));
    row.put("exit_code", r.exitCode());
    row.put("detail", r.detail());
    return row;
  }

  /**
   * A time for the page: {@code iso} (machine-readable), {@code utc} and, when {@code zone} is not
   * UTC, {@code local} (the time in that zone, named).
   */
  private static Map<String, Object> time(Instant instant, ZoneId zone) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("iso", ISO.format(instant));
    out.put("utc", LOCAL.format(instant.atZone(ZoneOffset.UTC)) + " UTC");
    out.put(
        "local",
        zone == null || zone.equals(ZoneOffset.UTC)
            ? null
            : LOCAL.format(instant.atZone(zone)) + " " + zone.getId());
    return out;
  }

  private static Outcome outcome(String label) {
    if (label == null) {
      return null;
    }
    for (Outcome o : Outcome.values()) {
      if (o.label().equals(label)) {
        return o;
      }
    }
    return null;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static final class NodeRow {
    final String node;
    Instant lastStarted;
    int runs;
    final List<String> holds = new ArrayList<>();

    NodeRow(String node) {
      this.node = node;
    }
  }
}
