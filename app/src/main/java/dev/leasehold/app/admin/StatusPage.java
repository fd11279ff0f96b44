package dev.leasehold.app.admin;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.schedule.CronSchedule;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The read-only status page at {@code /}: server-rendered HTML with one small script (only for the
 * trigger buttons, present only when an admin token is configured). Two store round trips per view
 * ({@link LeaseStore#list()} and one {@link ExecutionLog#recent}); a store that does not answer
 * gives a page that says so instead of an error. Filters are plain GET parameters, so a filtered
 * view is a link and survives the refresh.
 */
final class StatusPage {
  static final int REFRESH_SECONDS = 10;
  static final int HISTORY_READ = 500;
  static final int HISTORY_SHOWN = 50;
  static final int STRIP = 12;
  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_INSTANT;

  private final DaemonConfig config;
  private final LeaseStore store;
  private final ExecutionLog history;
  private final StoreHealth health;
  private final boolean triggerEnabled;

  StatusPage(
      DaemonConfig config,
      LeaseStore store,
      ExecutionLog history,
      StoreHealth health,
      boolean triggerEnabled) {
    this.config = config;
    this.store = store;
    this.history = history;
    this.health = health;
    this.triggerEnabled = triggerEnabled;
  }

  /**
   * @param jobFilter only this job's history, or {@code null}
   * @param outcomeFilter only this outcome label in the history, or {@code null}
   */
  String render(String jobFilter, String outcomeFilter, Instant now) {
    String job = config.job(blankToNull(jobFilter)).map(JobConfig::name).orElse(null);
    Outcome outcome = outcome(outcomeFilter);
    List<String> problems = new ArrayList<>();
    Map<String, LeaseState> leases = new TreeMap<>();
    try {
      leases.putAll(
          store.list().stream()
              .collect(Collectors.toMap(LeaseState::name, Function.identity(), (a, b) -> a)));
    } catch (RuntimeException e) {
      problems.add("leases could not be read: " + StoreOpener.summary(e));
    }
    List<ExecutionRecord> recent = List.of();
    try {
      recent = history.recent(null, HISTORY_READ);
    } catch (RuntimeException e) {
      problems.add("history could not be read: " + StoreOpener.summary(e));
    }
    boolean up = problems.isEmpty() && health.healthy();

    StringBuilder html = new StringBuilder(16_384);
    head(html, up);
    html.append("<main>\n");
    for (String problem : problems) {
      html.append("<p class=\"problem\" role=\"alert\">").append(esc(problem)).append("</p>\n");
    }
    jobs(html, leases, recent, now);
    nodes(html, leases, recent);
    history(html, recent, job, outcome);
    html.append("</main>\n");
    if (triggerEnabled) {
      html.append(TRIGGER_SCRIPT);
    }
    html.append("</body>\n</html>\n");
    return html.toString();
  }

  private void head(StringBuilder html, boolean up) {
    html.append("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<meta http-equiv=\"refresh\" content=\"")
        .append(REFRESH_SECONDS)
        .append("\">\n<title>Leasehold · ")
        .append(esc(config.node()))
        .append("</title>\n<style>")
        .append(CSS)
        .append("</style>\n</head>\n<body>\n<header>\n<h1>Leasehold</h1>\n<p>Node <b id=\"node\">")
        .append(esc(config.node()))
        .append("</b> · store <code>")
        .append(esc(StoreOpener.describe(config.store())))
        .append("</code> · <span id=\"store-health\" class=\"health ")
        .append(up ? "up\">store answering" : "down\">store NOT answering")
        .append("</span> · page refreshes every ")
        .append(REFRESH_SECONDS)
        .append(" s</p>\n</header>\n");
  }

  private void jobs(
      StringBuilder html,
      Map<String, LeaseState> leases,
      List<ExecutionRecord> recent,
      Instant now) {
    Map<String, List<ExecutionRecord>> byJob =
        recent.stream().collect(Collectors.groupingBy(ExecutionRecord::job));
    html.append("<section aria-labelledby=\"jobs-title\">\n<h2 id=\"jobs-title\">Jobs</h2>\n");
    if (triggerEnabled) {
      html.append(
          "<p><label>Admin token <input type=\"password\" id=\"token\" autocomplete=\"off\">"
              + "</label> <output id=\"trigger-result\" aria-live=\"polite\"></output></p>\n");
    }
    html.append("<table id=\"jobs\">\n<caption>Every configured job, its next firing and its")
        .append(" lease (times on the store's clock)</caption>\n<thead><tr>")
        .append("<th scope=\"col\">Job</th><th scope=\"col\">Schedule</th>")
        .append("<th scope=\"col\">Next firing</th><th scope=\"col\">Holder</th>")
        .append("<th scope=\"col\">Lease until</th><th scope=\"col\">Last fence</th>")
        .append("<th scope=\"col\">Recent outcomes (newest first)</th>");
    if (triggerEnabled) {
      html.append("<th scope=\"col\">Run now</th>");
    }
    html.append("</tr></thead>\n<tbody>\n");
    for (JobConfig job : config.jobs()) {
      ZoneId zone =
          job.schedule() instanceof CronSchedule cron ? cron.zone() : (ZoneId) ZoneOffset.UTC;
      LeaseState lease = leases.get(job.name());
      html.append("<tr data-job=\"")
          .append(esc(job.name()))
          .append("\"><th scope=\"row\">")
          .append(esc(job.name()))
          .append("</th><td>")
          .append(esc(ScheduleWords.describe(job.schedule())))
          .append("<br><small>zone ")
          .append(esc(zoneName(zone)))
          .append("</small></td><td class=\"next\">");
      Optional<Instant> next = job.schedule().nextAfter(now);
      if (next.isPresent()) {
        html.append(time(next.get(), zone));
      } else {
        html.append("none (a one-off that has passed)");
      }
      html.append("</td><td class=\"holder\">")
          .append(
              lease == null
                  ? "never leased"
                  : lease.currentHolder().map(StatusPage::esc).orElse("free"))
          .append("</td><td>")
          .append(lease == null || lease.leaseUntil() == null ? "" : time(lease.leaseUntil(), null))
          .append("</td><td class=\"fence\">")
          .append(lease == null ? 0 : lease.fence())
          .append("</td><td>");
      strip(html, byJob.getOrDefault(job.name(), List.of()));
      html.append("</td>");
      if (triggerEnabled) {
        html.append("<td><button type=\"button\" class=\"trigger\" data-job=\"")
            .append(esc(job.name()))
            .append("\">Run ")
            .append(esc(job.name()))
            .append(" now</button></td>");
      }
      html.append("</tr>\n");
    }
    html.append("</tbody>\n</table>\n</section>\n");
  }

  private static void strip(StringBuilder html, List<ExecutionRecord> records) {
    if (records.isEmpty()) {
      html.append("<span class=\"none\">no runs in recent history</span>");
      return;
    }
    html.append("<ol class=\"strip\">");
    records.stream()
        .limit(STRIP)
        .forEach(
            r ->
                html.append("<li class=\"o-")
                    .append(r.outcome().label())
                    .append("\" title=\"")
                    .append(
                        esc(ISO.format(r.fireTime()) + " on " + r.node() + ", fence " + r.fence()))
                    .append("\"><span aria-hidden=\"true\">")
                    .append(symbol(r.outcome()))
                    .append("</span> ")
                    .append(r.outcome().label())
                    .append("</li>"));
    html.append("</ol>");
  }

  private void nodes(
      StringBuilder html, Map<String, LeaseState> leases, List<ExecutionRecord> recent) {
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
    html.append("<section aria-labelledby=\"nodes-title\">\n<h2 id=\"nodes-title\">Nodes</h2>\n")
        .append("<table id=\"nodes\">\n<caption>Replicas seen in the recent history or holding")
        .append(" a lease now</caption>\n<thead><tr><th scope=\"col\">Node</th>")
        .append("<th scope=\"col\">Last run started</th><th scope=\"col\">Runs in recent")
        .append(" history</th><th scope=\"col\">Holds now</th></tr></thead>\n<tbody>\n");
    nodes.values().stream()
        .sorted(
            Comparator.comparing(
                (NodeRow n) -> n.lastStarted == null ? Instant.MIN : n.lastStarted,
                Comparator.reverseOrder()))
        .forEach(
            n ->
                html.append("<tr><th scope=\"row\">")
                    .append(esc(n.node))
                    .append(n.node.equals(config.node()) ? " (this node)" : "")
                    .append("</th><td>")
                    .append(n.lastStarted == null ? "" : time(n.lastStarted, null))
                    .append("</td><td>")
                    .append(n.runs)
                    .append("</td><td>")
                    .append(esc(String.join(", ", n.holds)))
                    .append("</td></tr>\n"));
    html.append("</tbody>\n</table>\n</section>\n");
  }

  private void history(
      StringBuilder html, List<ExecutionRecord> recent, String job, Outcome outcome) {
    html.append("<section aria-labelledby=\"history-title\">\n<h2 id=\"history-title\">History")
        .append("</h2>\n<form method=\"get\" action=\"/\" id=\"filters\">\n<label>Job <select")
        .append(" name=\"job\"><option value=\"\">all jobs</option>");
    for (String name : config.jobNames()) {
      html.append("<option")
          .append(name.equals(job) ? " selected" : "")
          .append(">")
          .append(esc(name))
          .append("</option>");
    }
    html.append("</select></label>\n<label>Outcome <select name=\"outcome\"><option value=\"\">")
        .append("all outcomes</option>");
    for (Outcome o : Outcome.values()) {
      html.append("<option")
          .append(o == outcome ? " selected" : "")
          .append(">")
          .append(o.label())
          .append("</option>");
    }
    html.append("</select></label>\n<button type=\"submit\">Filter</button>\n</form>\n");
    List<ExecutionRecord> shown =
        recent.stream()
            .filter(r -> job == null || r.job().equals(job))
            .filter(r -> outcome == null || r.outcome() == outcome)
            .limit(HISTORY_SHOWN)
            .toList();
    html.append("<table id=\"history\">\n<caption>")
        .append(shown.size())
        .append(shown.size() == 1 ? " execution" : " executions")
        .append(", newest first")
        .append(job == null ? "" : ", job " + esc(job))
        .append(outcome == null ? "" : ", outcome " + outcome.label())
        .append("</caption>\n<thead><tr><th scope=\"col\">Job</th><th scope=\"col\">Firing")
        .append(" (UTC)</th><th scope=\"col\">Node</th><th scope=\"col\">Fence</th>")
        .append("<th scope=\"col\">Outcome</th><th scope=\"col\">Trigger</th>")
        .append("<th scope=\"col\">Duration</th><th scope=\"col\">Exit</th>")
        .append("<th scope=\"col\">Detail</th></tr></thead>\n<tbody>\n");
    for (ExecutionRecord r : shown) {
      html.append("<tr class=\"o-")
          .append(r.outcome().label())
          .append("\"><td>")
          .append(esc(r.job()))
          .append("</td><td>")
          .append(time(r.fireTime(), null))
          .append("</td><td>")
          .append(esc(r.node()))
          .append("</td><td>")
          .append(r.fence())
          .append("</td><td class=\"outcome\"><span aria-hidden=\"true\">")
          .append(symbol(r.outcome()))
          .append("</span> ")
          .append(r.outcome().label())
          .append("</td><td>")
          .append(r.trigger().label())
          .append("</td><td>")
          .append(
              esc(
                  dev.leasehold.core.schedule.Durations.format(
                      java.time.Duration.between(r.startedAt(), r.finishedAt()))))
          .append("</td><td>")
          .append(r.exitCode() == null ? "" : r.exitCode())
          .append("</td><td>")
          .append(r.detail() == null ? "" : esc(r.detail()))
          .append("</td></tr>\n");
    }
    if (shown.isEmpty()) {
      html.append("<tr><td colspan=\"9\">No executions match.</td></tr>\n");
    }
    html.append("</tbody>\n</table>\n</section>\n");
  }

  /** A time in {@code zone} with UTC beside it (or UTC alone), machine-readable too. */
  private static String time(Instant instant, ZoneId zone) {
    String utc = LOCAL.format(instant.atZone(ZoneOffset.UTC)) + " UTC";
    String text =
        zone == null || zone.equals(ZoneOffset.UTC)
            ? utc
            : LOCAL.format(instant.atZone(zone))
                + " "
                + zone.getId()
                + "<br><small>"
                + utc
                + "</small>";
    return "<time datetime=\"" + ISO.format(instant) + "\">" + text + "</time>";
  }

  private static String zoneName(ZoneId zone) {
    return zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId();
  }

  private static String symbol(Outcome outcome) {
    return switch (outcome) {
      case SUCCEEDED -> "✓";
      case FAILED -> "✗";
      case TIMED_OUT -> "⏱";
      case LEASE_LOST -> "⚠";
      case SKIPPED -> "↷";
      case MISSED -> "∅";
    };
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

  static String esc(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
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

  private static final String CSS =
      """
      body{font:15px/1.4 system-ui,sans-serif;margin:0 1.5rem 2rem;color:#1b1b1b;background:#fff}
      h1{font-size:1.4rem;margin:1rem 0 .2rem}h2{font-size:1.15rem;margin:1.6rem 0 .4rem}
      table{border-collapse:collapse;width:100%;margin:.3rem 0}caption{text-align:left;color:#555;padding:.2rem 0}
      th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
      thead th{background:#f3f3f3}small{color:#555}code{font-size:.9em}
      .health.up{color:#0a5d1a;font-weight:600}.health.down{color:#a10000;font-weight:700}
      .problem{border:2px solid #a10000;padding:.4rem .6rem;font-weight:600}
      ol.strip{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem}
      ol.strip li{border:1px solid #999;border-radius:3px;padding:0 .3rem;font-size:.8rem}
      .o-succeeded{background:#e5f4e7}.o-failed,.o-timed-out,.o-lease-lost{background:#fbe3e3}
      .o-missed{background:#fff1cc}.o-skipped{background:#eee}
      form label{margin-right:1rem}
      """;

  private static final String TRIGGER_SCRIPT =
      """
      <script>
      (function () {
        var token = document.getElementById('token');
        token.value = sessionStorage.getItem('leasehold-token') || '';
        token.addEventListener('input', function () {
          sessionStorage.setItem('leasehold-token', token.value);
        });
      })();
      document.querySelectorAll('button.trigger').forEach(function (b) {
        b.addEventListener('click', function () {
          var out = document.getElementById('trigger-result');
          var token = document.getElementById('token').value;
          out.textContent = 'running ' + b.dataset.job + ' ...';
          fetch('/jobs/' + encodeURIComponent(b.dataset.job) + '/trigger',
                {method: 'POST', headers: {'Authorization': 'Bearer ' + token}})
            .then(function (r) { return r.text().then(function (t) {
              out.textContent = b.dataset.job + ': HTTP ' + r.status + ' ' + t; }); })
            .catch(function (e) { out.textContent = b.dataset.job + ': ' + e; });
        });
      });
      </script>
      """;

  /** The query parameters of a request to the page, decoded (the JDK server has no parser). */
  static Map<String, String> query(String rawQuery) {
    Map<String, String> out = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          java.net.URLDecoder.decode(key, java.nio.charset.StandardCharsets.UTF_8),
          java.net.URLDecoder.decode(value, java.nio.charset.StandardCharsets.UTF_8));
    }
    return out;
  }
}
