package dev.leasehold.app.admin;

import dev.leasehold.app.admin.Routes.Access;
import dev.leasehold.app.audit.Actor;
import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.audit.AuditTrail;
import dev.leasehold.app.config.AdminConfig;
import dev.leasehold.app.config.CheckConfig;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.reload.ConfigReload;
import dev.leasehold.app.report.CheckReport;
import dev.leasehold.app.report.HistoryReport;
import dev.leasehold.app.report.JobReport;
import dev.leasehold.app.report.NodesReport;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.check.CheckJournal;
import dev.leasehold.core.check.Ping;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.TerminalText;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin endpoint (loopback unless configured otherwise). Its routes, in {@link #routes}:
 *
 * <ul>
 *   <li>{@code GET /}, {@code /status.css}, {@code /status.js}: the status page, static files that
 *       read the JSON API (see {@link StatusView});
 *   <li>{@code GET /api/status}: the page's data, one JSON snapshot;
 *   <li>{@code GET /health}: 200 when the store answered recently, else 503;
 *   <li>{@code GET /metrics}: Prometheus text;
 *   <li>{@code GET /jobs}: the jobs' rows of {@code status --json};
 *   <li>{@code GET /checks}: the heartbeat checks' rows of {@code status --json};
 *   <li>{@code GET /status[?format=json]}: what {@code status} (or {@code status --json}) prints
 *       from this daemon's file, with the file's identity in a header (see {@link #status});
 *   <li>{@code GET /history}: the same JSON as {@code history --json} (each run with its output),
 *       {@code ?job=NAME} for one job, {@code ?limit=N} (default 20, at most {@value
 *       #MAX_HISTORY});
 *   <li>{@code POST /jobs/{name}/trigger}: runs the job once now, like {@code trigger}; needs
 *       {@code Authorization: Bearer <admin.token>} (401 with {@code WWW-Authenticate: Bearer}
 *       without it or with a wrong one, 403 when no token is configured). 200 with the execution as
 *       JSON, 409 when the lease is held elsewhere;
 *   <li>{@code POST /reload}: reads the configuration file again, like SIGHUP ({@link
 *       ConfigReload}); same token, same answers without it. 200 with the jobs added, removed and
 *       changed, else 400/422 with the one-line reason and nothing changed;
 *   <li>{@code POST /ping/{name}} and {@code POST /ping/{name}/fail}: a heartbeat check's ping,
 *       with the check's own {@code Authorization: Bearer <ping-key>} ({@link #ping});
 *   <li>{@code POST /jobs/{name}/pause[?reason=TEXT&stop_running=true]} and {@code POST
 *       /jobs/{name}/resume[?catch_up=true]}: like {@code pause} and {@code resume}, with the same
 *       token; 200 with the job's pause as JSON, 400 for a bad reason, 404 for an unknown job;
 *   <li>{@code GET /audit[?limit=N]}: the audit trail, the same JSON as {@code audit --json}, with
 *       a token whenever one is configured (the read token suffices); 501 on a store without a
 *       journal. {@code GET /api/audit} is the page's copy, its texts made inert. Every request to
 *       a route declared with an audit action (trigger, pause, resume, reload) is recorded, refused
 *       ones too (but 429), with the kind of token it carried and the client's address.
 * </ul>
 *
 * <p>Adding an endpoint: one line in {@link #routes} naming its method, path, {@link Access} and
 * handler (a method here returning an {@link AdminResponse}); the checks below and the security
 * headers apply to it without more code.
 *
 * <p>Every request, in this order: its {@code Host} must be one of the {@link AllowedHosts} (403
 * otherwise: a page that rebinds its name to this address is refused); a request that changes state
 * must not come from another origin ({@code Origin} or {@code Sec-Fetch-Site}, 403); then the
 * route's {@link Access}: {@code CHANGE} always needs the token, {@code READ} needs it beyond
 * loopback (without a token configured they answer 403 there, and a warning says so at start); a
 * missing or wrong token gets 401 with {@code WWW-Authenticate: Bearer} on every such route. Wrong
 * tokens are counted by {@link AuthFailures} (429 once a client guessed too often). Every answer
 * carries the {@link #CONTENT_SECURITY_POLICY}, {@code X-Content-Type-Options: nosniff}, {@code
 * Referrer-Policy: no-referrer}, and every answer but the page's CSS and script {@code
 * Cache-Control: no-store}.
 *
 * <p>Connections, slow clients and {@code /health}: see {@link AdminTransport}.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  /** Most runs {@code /history} answers with at once. */
  static final int MAX_HISTORY = 1000;

  /**
   * Only the page's own files: no inline script or style, no other origin, no framing (the trigger
   * buttons must not be clickable from someone else's page).
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

  private final DaemonConfig config;
  private final ConfigReload reload;
  private final Scheduler scheduler;
  private final StoreBackend backend;
  private final LeaseStore store;
  private final StoreHealth health;
  private final DaemonMetrics metrics;
  private final StatusView view;
  private final ExecutionLog history;
  private final AuditTrail audit;
  private final Clock clock;
  private final Routes routes = new Routes();
  private final AllowedHosts hosts;
  private final AuthFailures failures = new AuthFailures(System::nanoTime);
  private AdminTransport transport;
  private volatile Consumer<String> onPing = check -> {};

  /** Bound beyond loopback: reading needs the token too. */
  private final boolean exposed;

  private AdminServer(
      DaemonConfig config,
      InetSocketAddress address,
      Scheduler scheduler,
      StoreBackend backend,
      StoreHealth health,
      DaemonMetrics metrics,
      ExecutionLog history,
      ConfigReload reload,
      Clock clock) {
    this.config = config;
    this.clock = clock;
    this.reload = reload;
    this.exposed = !address.getAddress().isLoopbackAddress();
    this.hosts = AllowedHosts.of(address.getHostString(), config.admin().allowedHosts());
    this.scheduler = scheduler;
    this.backend = backend;
    this.store = backend.leaseStore();
    this.health = health;
    this.metrics = metrics;
    this.history = history;
    this.audit = AuditTrail.of(backend, clock);
    this.view =
        new StatusView(
            this::jobsConfig,
            Optional.ofNullable(reload),
            backend,
            history,
            health,
            config.admin().token() != null);
    routes(routes);
  }

  /** Every endpoint: method, path, who may call it, and what answers it. */
  private void routes(Routes routes) {
    AdminResponse page = WebAssets.load("status.html");
    AdminResponse css = WebAssets.load("status.css");
    AdminResponse script = WebAssets.load("status.js");
    routes
        .get("/health", Access.OPEN, (r, p) -> health())
        .get("/", Access.READ, (r, p) -> page)
        .get("/status.css", Access.READ, (r, p) -> css)
        .get("/status.js", Access.READ, (r, p) -> script)
        .get(
            "/api/status",
            Access.READ,
            (r, p) ->
                AdminResponse.json(
                    view.snapshot(r.query().get("job"), r.query().get("outcome"), clock.instant())))
        .get(
            "/metrics",
            Access.READ,
            (r, p) ->
                AdminResponse.of(200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape()))
        .get(
            "/jobs",
            Access.READ,
            (r, p) -> AdminResponse.json(StatusReport.rows(jobsConfig(), store, clock.instant())))
        .get("/jobs/{name}", Access.OUTPUT, (r, p) -> job(p.get("name")))
        .get("/nodes", Access.READ, (r, p) -> nodes())
        .get(
            "/checks",
            Access.READ,
            (r, p) -> AdminResponse.json(CheckReport.rows(jobsConfig(), backend, clock.instant())))
        .get("/status", Access.READ, (r, p) -> status(r))
        .get("/history", Access.OUTPUT, (r, p) -> history(r.query()))
        .get("/audit", Access.OUTPUT, (r, p) -> audit(r.query(), false))
        .get("/api/audit", Access.OUTPUT, (r, p) -> audit(r.query(), true))
        .post(
            "/jobs/{name}/trigger",
            Access.CHANGE,
            AuditEntry.TRIGGER,
            (r, p) -> trigger(p.get("name")))
        .post(
            "/jobs/{name}/pause",
            Access.CHANGE,
            AuditEntry.PAUSE,
            (r, p) -> pause(p.get("name"), r))
        .post(
            "/jobs/{name}/resume",
            Access.CHANGE,
            AuditEntry.RESUME,
            (r, p) -> resume(p.get("name"), r))
        .post("/ping/{name}", Access.PING, (r, p) -> ping(p.get("name"), false, r))
        .post("/ping/{name}/fail", Access.PING, (r, p) -> ping(p.get("name"), true, r));
    if (reload != null) {
      routes.post("/reload", Access.CHANGE, AuditEntry.RELOAD, (r, p) -> reload());
    }
  }

  /** The configuration in force: the jobs change with each reload applied, the rest does not. */
  private DaemonConfig jobsConfig() {
    return reload == null ? config : reload.current();
  }

  /**
   * {@code POST /reload}: reads the file again, like SIGHUP. 200 with the jobs added, removed and
   * changed; 400 (a bad file), 422 (a change that needs a restart) or 503 (stopping) with the
   * one-line reason, and nothing changed.
   */
  private AdminResponse reload() {
    ConfigReload.Outcome outcome = reload.reload();
    Map<String, Object> body = new LinkedHashMap<>();
    if (outcome instanceof ConfigReload.Applied a) {
      body.put("result", "applied");
      body.put("file", a.file());
      body.put("added", a.changes().added());
      body.put("removed", a.changes().removed());
      body.put("changed", a.changes().changed());
      return AdminResponse.json(body).audited(ConfigReload.describe(outcome));
    }
    ConfigReload.Refused refused = (ConfigReload.Refused) outcome;
    body.put("result", "refused");
    body.put("reason", refused.reason());
    return AdminResponse.json(refused.status(), body).audited(ConfigReload.describe(outcome));
  }

  public static AdminServer start(
      DaemonConfig config,
      Scheduler scheduler,
      StoreBackend backend,
      StoreHealth health,
      DaemonMetrics metrics,
      ExecutionLog history,
      Clock clock)
      throws IOException {
    return start(config, scheduler, backend, health, metrics, history, null, clock);
  }

  /**
   * @param reload the daemon's reload, answering {@code POST /reload}; {@code null} for none
   * @param clock the wall clock the reports read "now" from
   */
  public static AdminServer start(
      DaemonConfig config,
      Scheduler scheduler,
      StoreBackend backend,
      StoreHealth health,
      DaemonMetrics metrics,
      ExecutionLog history,
      ConfigReload reload,
      Clock clock)
      throws IOException {
    AdminConfig admin = config.admin();
    InetSocketAddress address =
        new InetSocketAddress(admin.listen().getHostString(), admin.listen().getPort());
    AdminServer server =
        new AdminServer(
            config, address, scheduler, backend, health, metrics, history, reload, clock);
    try {
      server.transport =
          AdminTransport.start(address, server::answer, r -> r.path().equals("/health"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding " + address, e);
    }
    log.info("admin endpoint on http://{}:{}/", address.getHostString(), server.port());
    if (server.exposed && admin.token() == null) {
      log.warn(
          "admin endpoint listens on {} beyond loopback without admin.token: only /health"
              + " and the checks' pings answer there; set admin.token to use /metrics, /jobs"
              + " and trigger",
          address.getHostString());
    }
    return server;
  }

  public int port() {
    return transport.address().getPort();
  }

  /** The answer to one request: the route, its access check, its handler, the common headers. */
  AdminResponse answer(AdminRequest request) {
    AdminResponse response;
    try {
      response = route(request);
    } catch (RuntimeException e) {
      log.warn("admin request {} failed: {}", request.path(), e.getMessage());
      response = AdminResponse.text(500, "error: " + e.getClass().getSimpleName() + "\n");
    }
    response =
        response
            .with("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            .with("X-Content-Type-Options", "nosniff")
            .with("Referrer-Policy", "no-referrer");
    if (!response.contentType().startsWith("text/css")
        && !response.contentType().startsWith("text/javascript")) {
      response = response.with("Cache-Control", "no-store");
    }
    return response;
  }

  private AdminResponse route(AdminRequest request) {
    String host = request.header("Host").orElse(null);
    if (host != null && !hosts.allows(host)) {
      return AdminResponse.text(
          403, "this endpoint does not answer to that host name; see admin.allowed-hosts\n");
    }
    Optional<Routes.Match> match = routes.find(request.method(), request.path());
    if (match.isEmpty()) {
      List<String> allowed = routes.methods(request.path());
      if (allowed.isEmpty()) {
        return AdminResponse.text(404, "not found\n");
      }
      return AdminResponse.text(405, "use " + String.join(" or ", allowed) + "\n")
          .with("Allow", String.join(", ", allowed));
    }
    Routes.Route route = match.get().route();
    if (route.action() == null) {
      return checkedAndAnswered(request, match.get());
    }
    String job = match.get().params().get("name");
    AdminResponse response;
    try {
      response = checkedAndAnswered(request, match.get());
    } catch (RuntimeException e) {
      recordAudit(request, route.action(), job, AuditEntry.FAILED, "HTTP 500: " + e.getMessage());
      throw e;
    }
    // a client blocked for guessing tokens is not recorded at each request: its guesses were
    if (response.status() != 429) {
      String detail = response.headers().get(AdminResponse.AUDIT_DETAIL);
      if (detail == null && response.status() >= 300) {
        detail = new String(response.body(), StandardCharsets.UTF_8).strip();
      }
      int status = response.status();
      String result =
          status < 300
              ? AuditEntry.OK
              : status >= 500 && status != 501 ? AuditEntry.FAILED : AuditEntry.REFUSED;
      recordAudit(
          request,
          route.action(),
          job,
          result,
          "HTTP " + status + (detail == null ? "" : ": " + detail));
    }
    return response.withoutAuditDetail();
  }

  /** An audited request, as the token it carried, the client's address and this node. */
  private void recordAudit(
      AdminRequest request, String action, String job, String result, String detail) {
    audit.record(
        Actor.http(tokenKind(request), request.client(), config.node()),
        action,
        job,
        result,
        detail);
  }

  /**
   * The kind of token a request carried ({@link Actor#ADMIN}, {@link Actor#READ}, {@link
   * Actor#WRONG} or {@link Actor#NONE}), compared in constant time; never its value.
   */
  private String tokenKind(AdminRequest request) {
    String given = bearer(request.header("Authorization").orElse(null));
    if (given == null) {
      return Actor.NONE;
    }
    String token = config.admin().token();
    String readToken = config.admin().readToken();
    boolean admin = token != null && constantTimeEquals(given, token);
    boolean reader = readToken != null && constantTimeEquals(given, readToken);
    return admin ? Actor.ADMIN : reader ? Actor.READ : Actor.WRONG;
  }

  /** The route's access checked, then its handler's answer. */
  private AdminResponse checkedAndAnswered(AdminRequest request, Routes.Match match) {
    Access access = match.route().access();
    if ((access == Access.CHANGE || access == Access.PING) && crossOrigin(request)) {
      return AdminResponse.text(403, "refused: the request comes from another origin\n");
    }
    boolean anyToken = config.admin().token() != null || config.admin().readToken() != null;
    boolean needsToken =
        access == Access.CHANGE
            || (access == Access.READ && exposed)
            || (access == Access.OUTPUT && (exposed || anyToken));
    if (needsToken) {
      Optional<AdminResponse> refused = refuseWithoutToken(request, access == Access.CHANGE);
      if (refused.isPresent()) {
        return refused.get();
      }
    }
    return match.route().handler().handle(request, match.params());
  }

  /**
   * {@code GET /audit?limit=N}: the audit trail, newest first, as {@code audit --json}; {@code GET
   * /api/audit}, the page's, has every text made inert for display ({@link TerminalText#line}). 501
   * when the store keeps no trail.
   */
  private AdminResponse audit(Map<String, String> query, boolean forPage) {
    int limit;
    try {
      limit =
          Integer.parseInt(query.getOrDefault("limit", String.valueOf(AuditTrail.DEFAULT_LIMIT)));
    } catch (NumberFormatException e) {
      limit = 0;
    }
    if (limit < 1 || limit > AuditTrail.MAX_LIMIT) {
      return AdminResponse.text(
          400, "limit: a whole number from 1 to " + AuditTrail.MAX_LIMIT + "\n");
    }
    Optional<List<AuditEntry>> entries = audit.recent(limit);
    if (entries.isEmpty()) {
      return AdminResponse.text(501, "this store does not keep an audit trail\n");
    }
    List<Map<String, Object>> rows = entries.get().stream().map(AuditEntry::row).toList();
    if (forPage) {
      rows =
          rows.stream()
              .map(
                  row -> {
                    Map<String, Object> inert = new LinkedHashMap<>();
                    row.forEach(
                        (k, v) -> inert.put(k, v instanceof String t ? TerminalText.line(t) : v));
                    return inert;
                  })
              .toList();
    }
    return AdminResponse.json(rows);
  }

  /** {@code GET /jobs/NAME}: one job ({@link JobReport}); 404 for a job not configured. */
  private AdminResponse job(String name) {
    if (!LeaseNames.isValid(name)) {
      return AdminResponse.text(400, "name: " + LeaseNames.problem(name) + "\n");
    }
    return JobReport.of(jobsConfig(), store, history, name, clock.instant())
        .map(AdminResponse::json)
        .orElseGet(() -> AdminResponse.text(404, "no job named " + name + "\n"));
  }

  /** {@code GET /nodes}: the same rows as {@code nodes --json}. */
  /**
   * {@code GET /status[?format=json]}: the text {@code status} prints from this daemon's file (with
   * {@code format=json}, that of {@code status --json}), with the file's {@link
   * StatusReport#identity} in the {@value StatusReport#IDENTITY_HEADER} header: {@code status} on
   * this machine prints it instead of opening the store when the identity is its own file's.
   */
  private AdminResponse status(AdminRequest request) {
    Map<String, String> query = request.query();
    DaemonConfig current = jobsConfig();
    boolean json = "json".equals(query.get("format"));
    String body = StatusReport.render(current, backend, clock.instant(), json);
    AdminResponse answer =
        AdminResponse.of(200, json ? AdminResponse.JSON : AdminResponse.TEXT, body)
            .with(StatusReport.IDENTITY_HEADER, StatusReport.identity(current));
    String challenge = request.header(StatusReport.CHALLENGE_HEADER).orElse(null);
    if (challenge != null && challenge.length() <= 128) {
      Optional<String> proof = StatusReport.proof(current, challenge, body);
      if (proof.isPresent()) {
        answer = answer.with(StatusReport.PROOF_HEADER, proof.get());
      }
    }
    return answer;
  }

  private AdminResponse nodes() {
    Optional<NodeRecords> records = backend.nodeRecords();
    if (records.isEmpty()) {
      return AdminResponse.text(501, "this store keeps no node records\n");
    }
    return AdminResponse.json(
        NodesReport.rows(Replicas.of(records.get().nodes(), clock.instant())));
  }

  /**
   * {@code GET /history?job=NAME&limit=N&before=INSTANT}: the same rows as {@code history --json};
   * with {@code before}, the page of runs fired strictly before it ({@link HistoryReport#page}).
   */
  private AdminResponse history(Map<String, String> query) {
    String job = query.get("job");
    if (job != null && !LeaseNames.isValid(job)) {
      return AdminResponse.text(400, "job: " + LeaseNames.problem(job) + "\n");
    }
    int limit;
    try {
      limit = Integer.parseInt(query.getOrDefault("limit", "20"));
    } catch (NumberFormatException e) {
      limit = 0;
    }
    if (limit < 1 || limit > MAX_HISTORY) {
      return AdminResponse.text(400, "limit: a whole number from 1 to " + MAX_HISTORY + "\n");
    }
    String cursor = query.get("before");
    if (cursor == null) {
      return AdminResponse.json(HistoryReport.rows(history.recent(job, limit)));
    }
    Instant before;
    try {
      before = Instant.parse(cursor);
    } catch (DateTimeParseException e) {
      return AdminResponse.text(
          400, "before: an ISO-8601 instant in UTC, e.g. 2026-11-30T18:00:00.000Z\n");
    }
    return AdminResponse.json(HistoryReport.rows(HistoryReport.page(history, job, before, limit)));
  }

  private AdminResponse health() {
    boolean up = health.healthy();
    String body =
        "{\"status\":\""
            + (up ? "up" : "down")
            + "\",\"node\":\""
            + config.node().replace("\"", "")
            + "\",\"running_jobs\":"
            + metrics.runningJobs()
            + "}\n";
    return AdminResponse.of(up ? 200 : 503, AdminResponse.JSON, body);
  }

  /**
   * Whether the request was sent by a page of another origin: an {@code Origin} that is not this
   * endpoint (scheme http, an allowed host, this port), or a browser's {@code Sec-Fetch-Site} that
   * is neither {@code same-origin} nor {@code none}. Tools that send neither (curl) are not refused
   * here; they still need the token.
   */
  private boolean crossOrigin(AdminRequest request) {
    String site = request.header("Sec-Fetch-Site").orElse(null);
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      return true;
    }
    String origin = request.header("Origin").orElse(null);
    if (origin == null) {
      return false;
    }
    String prefix = "http://";
    if (!origin.toLowerCase(Locale.ROOT).startsWith(prefix)) {
      return true;
    }
    String authority = origin.substring(prefix.length());
    if (!hosts.allows(authority)) {
      return true;
    }
    int colon = authority.lastIndexOf(':');
    boolean hasPort = colon > authority.lastIndexOf(']');
    int port = hasPort ? parsePort(authority.substring(colon + 1)) : 80;
    return port != port();
  }

  private static int parsePort(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Empty when the request carries a token good for it: the admin token for a change, the admin or
   * the read token for a read. Otherwise: 403 when no such token is configured (the route is off,
   * no credentials would help) or for the read token on a change; 401 with a {@code
   * WWW-Authenticate: Bearer} challenge without {@code Authorization} (not counted as a guess); 429
   * once this client sent too many wrong tokens ({@link AuthFailures}); else 401, counted.
   */
  private Optional<AdminResponse> refuseWithoutToken(AdminRequest request, boolean change) {
    String token = config.admin().token();
    String readToken = change ? null : config.admin().readToken();
    if (token == null && readToken == null) {
      return Optional.of(
          AdminResponse.text(
              403,
              exposed
                  ? "off beyond loopback without admin.token\n"
                  : "triggering over HTTP is off: set admin.token\n"));
    }
    String given = bearer(request.header("Authorization").orElse(null));
    if (given == null) {
      return Optional.of(challenge());
    }
    long wait = failures.blockedSeconds(request.client());
    if (wait > 0) {
      return Optional.of(
          AdminResponse.text(429, "too many wrong tokens; try again in " + wait + " s\n")
              .with("Retry-After", Long.toString(wait)));
    }
    // both compared, in constant time, whichever matches
    boolean admin = token != null && constantTimeEquals(given, token);
    String configuredRead = config.admin().readToken();
    boolean reader = configuredRead != null && constantTimeEquals(given, configuredRead);
    if (admin || (reader && !change)) {
      failures.succeeded(request.client());
      return Optional.empty();
    }
    if (reader) {
      return Optional.of(
          AdminResponse.text(403, "admin.read-token reads only; this needs admin.token\n"));
    }
    failures.failed(request.client());
    return Optional.of(challenge());
  }

  private static AdminResponse challenge() {
    return AdminResponse.text(401, "a valid 'Authorization: Bearer <admin.token>' is required\n")
        .with("WWW-Authenticate", "Bearer realm=\"leasehold\"");
  }

  /** The credentials of {@code Bearer <token>}, the scheme in any case, or {@code null}. */
  static String bearer(String authorization) {
    if (authorization == null) {
      return null;
    }
    String value = authorization.strip();
    int space = value.indexOf(' ');
    if (space < 0 || !value.substring(0, space).equalsIgnoreCase("Bearer")) {
      return null;
    }
    return value.substring(space + 1).strip();
  }

  /** Tells {@code listener} of each ping recorded here (the daemon's check watch looks at once). */
  public void onPing(Consumer<String> listener) {
    this.onPing = listener;
  }

  /**
   * {@code POST /ping/{name}[/fail]}: records a ping of the check in the store. 404 for a check not
   * configured; 401 with a {@code WWW-Authenticate: Bearer} challenge without the check's {@code
   * ping-key} or with another one (compared in constant time, counted as a guess), 429 once this
   * client guessed too often; 501 on a store without a journal; 200 with the check and the ping's
   * time. No answer holds a key.
   */
  private AdminResponse ping(String name, boolean failed, AdminRequest request) {
    Optional<CheckConfig> check = jobsConfig().check(name);
    if (check.isEmpty()) {
      return AdminResponse.text(404, "unknown check\n");
    }
    String given = bearer(request.header("Authorization").orElse(null));
    if (given == null) {
      return pingChallenge();
    }
    long wait = failures.blockedSeconds(request.client());
    if (wait > 0) {
      return AdminResponse.text(429, "too many wrong keys; try again in " + wait + " s\n")
          .with("Retry-After", Long.toString(wait));
    }
    if (!sameDigest(given, check.get().pingKey())) {
      failures.failed(request.client());
      return pingChallenge();
    }
    failures.succeeded(request.client());
    Optional<CheckJournal> journal = backend.journal().map(CheckJournal::new);
    if (journal.isEmpty()) {
      return AdminResponse.text(501, "this store keeps no journal: pings cannot be recorded\n");
    }
    Ping ping = journal.get().ping(name, failed, clock.instant());
    log.info("check={} pinged{} over the admin endpoint", name, failed ? " (fail)" : "");
    onPing.accept(name);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("check", name);
    body.put("ping", failed ? Ping.FAIL : Ping.OK);
    body.put("at", FireTimes.format(ping.at()));
    return AdminResponse.json(body);
  }

  private static AdminResponse pingChallenge() {
    return AdminResponse.text(401, "a valid 'Authorization: Bearer <ping-key>' is required\n")
        .with("WWW-Authenticate", "Bearer realm=\"leasehold-ping\"");
  }

  /** Equal texts, compared in constant time whatever their lengths (their SHA-256 digests). */
  private static boolean sameDigest(String a, String b) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] da = sha.digest(a.getBytes(StandardCharsets.UTF_8));
      byte[] db = sha.digest(b.getBytes(StandardCharsets.UTF_8));
      return MessageDigest.isEqual(da, db);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private AdminResponse trigger(String job) {
    if (jobsConfig().job(job).isEmpty()) {
      return AdminResponse.text(404, "unknown job\n");
    }
    Optional<ExecutionRecord> record = scheduler.trigger(job);
    if (record.isEmpty()) {
      return AdminResponse.text(409, "the job is running elsewhere right now; nothing was run\n");
    }
    ExecutionRecord r = record.get();
    return AdminResponse.json(HistoryReport.rows(List.of(r)).get(0))
        .audited("ran on " + r.node() + ", fence " + r.fence() + ": " + r.outcome().label());
  }

  /** {@code pause} over HTTP: paused by {@code admin@<node>}. */
  private AdminResponse pause(String job, AdminRequest request) {
    if (jobsConfig().job(job).isEmpty()) {
      return AdminResponse.text(404, "unknown job\n");
    }
    String reason = request.query().get("reason");
    reason = reason == null || reason.isBlank() ? null : reason.strip();
    boolean stop = "true".equals(request.query().get("stop_running"));
    String by = "admin@" + config.node();
    try {
      Pause.check(by, reason);
    } catch (IllegalArgumentException e) {
      return AdminResponse.text(400, "reason: " + e.getMessage() + "\n");
    }
    Optional<Pauses> pauses = backend.pauses();
    if (pauses.isEmpty()) {
      return AdminResponse.text(501, "this store does not keep pauses\n");
    }
    Pause pause = pauses.get().pause(job, by, reason, stop);
    log.info("job={} paused over the admin endpoint: {}", job, StatusReport.describe(pause));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", job);
    body.put("paused", StatusReport.paused(pause));
    return AdminResponse.json(body)
        .audited(
            (reason == null ? "no reason given" : "reason: " + reason)
                + (stop ? "; with stop_running" : ""));
  }

  /** {@code resume} over HTTP. */
  private AdminResponse resume(String job, AdminRequest request) {
    if (jobsConfig().job(job).isEmpty()) {
      return AdminResponse.text(404, "unknown job\n");
    }
    boolean catchUp = "true".equals(request.query().get("catch_up"));
    Optional<Pauses> pauses = backend.pauses();
    if (pauses.isEmpty()) {
      return AdminResponse.text(501, "this store does not keep pauses\n");
    }
    boolean resumed = pauses.get().resume(job, catchUp);
    if (resumed) {
      log.info("job={} resumed over the admin endpoint{}", job, catchUp ? " with catch-up" : "");
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", job);
    body.put("resumed", resumed);
    body.put("catch_up", catchUp);
    body.put("paused", null);
    return AdminResponse.json(body)
        .audited(
            !resumed
                ? "was not paused; nothing changed"
                : catchUp ? "resumed with catch_up" : "resumed");
  }

  private static boolean constantTimeEquals(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    if (transport != null) {
      transport.close();
    }
  }
}
