package dev.leasehold.app.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.config.AdminConfig;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.report.HistoryReport;
import dev.leasehold.app.report.Json;
import dev.leasehold.app.report.StatusReport;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.scheduler.Scheduler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin endpoint (JDK HTTP server, loopback unless configured otherwise):
 *
 * <ul>
 *   <li>{@code GET /}: the status page (HTML, read-only, refreshes itself), see {@link StatusPage};
 *   <li>{@code GET /health}: 200 when the store answered recently, else 503;
 *   <li>{@code GET /metrics}: Prometheus text;
 *   <li>{@code GET /jobs}: the same JSON as {@code status --json};
 *   <li>{@code POST /jobs/{name}/trigger}: runs the job once now, like {@code trigger}; needs
 *       {@code Authorization: Bearer <admin.token>} (403 otherwise, and always when no token is
 *       configured). 200 with the execution as JSON, 409 when the lease is held elsewhere.
 * </ul>
 *
 * <p>Bound beyond loopback, every endpoint but {@code /health} needs the token (and without a token
 * they answer 403; a warning says so at start).
 *
 * <p>Slow or stalled clients: the JDK server reads a request on an executor thread and has no read
 * timeout of its own. So threads are elastic (up to {@link #MAX_THREADS}, idle ones end) and a
 * request that has not arrived completely within {@code sun.net.httpserver.maxReqTime} (set here to
 * {@value #MAX_REQUEST_SECONDS} s unless the JVM was started with a value) has its connection
 * closed by the server's timer, which frees the thread.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
  private static final Pattern TRIGGER = Pattern.compile("/jobs/([^/]+)/trigger");

  /** Threads that may serve requests at once; more wait in a queue. */
  static final int MAX_THREADS = 32;

  /** Seconds a client has to send its whole request before the connection is closed. */
  static final int MAX_REQUEST_SECONDS = 5;

  static {
    // read once, when the JDK server's classes load
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", Integer.toString(MAX_REQUEST_SECONDS));
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final DaemonConfig config;
  private final Scheduler scheduler;
  private final LeaseStore store;
  private final StoreHealth health;
  private final DaemonMetrics metrics;
  private final StatusPage page;

  /** Bound beyond loopback: reading needs the token too. */
  private final boolean exposed;

  private AdminServer(
      HttpServer server,
      DaemonConfig config,
      Scheduler scheduler,
      LeaseStore store,
      StoreHealth health,
      DaemonMetrics metrics,
      ExecutionLog history) {
    this.server = server;
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            MAX_THREADS,
            MAX_THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "leasehold-admin");
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    this.executor = pool;
    this.config = config;
    this.exposed = !server.getAddress().getAddress().isLoopbackAddress();
    this.scheduler = scheduler;
    this.store = store;
    this.health = health;
    this.metrics = metrics;
    this.page = new StatusPage(config, store, history, health, config.admin().token() != null);
  }

  public static AdminServer start(
      DaemonConfig config,
      Scheduler scheduler,
      LeaseStore store,
      StoreHealth health,
      DaemonMetrics metrics,
      ExecutionLog history)
      throws IOException {
    AdminConfig admin = config.admin();
    InetSocketAddress address =
        new InetSocketAddress(admin.listen().getHostString(), admin.listen().getPort());
    HttpServer http = HttpServer.create(address, 16);
    AdminServer server = new AdminServer(http, config, scheduler, store, health, metrics, history);
    http.setExecutor(server.executor);
    http.createContext("/", server::handle);
    http.start();
    log.info("admin endpoint on http://{}:{}/", address.getHostString(), server.port());
    if (server.exposed && admin.token() == null) {
      log.warn(
          "admin endpoint listens on {} beyond loopback without admin.token: only /health"
              + " answers there; set admin.token to use /metrics, /jobs and trigger",
          address.getHostString());
    }
    return server;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (exposed && !path.equals("/health") && !authorized(exchange)) {
        return;
      }
      Matcher trigger = TRIGGER.matcher(path);
      if (trigger.matches()) {
        if (!method.equals("POST")) {
          send(exchange, 405, "text/plain", "use POST\n");
        } else {
          trigger(exchange, trigger.group(1));
        }
        return;
      }
      if (!method.equals("GET")) {
        send(exchange, 405, "text/plain", "use GET\n");
        return;
      }
      switch (path) {
        case "/" -> {
          Map<String, String> query = StatusPage.query(exchange.getRequestURI().getRawQuery());
          send(
              exchange,
              200,
              "text/html; charset=utf-8",
              page.render(query.get("job"), query.get("outcome"), Instant.now()));
        }
        case "/health" -> health(exchange);
        case "/metrics" ->
            send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
        case "/jobs" ->
            send(
                exchange,
                200,
                "application/json",
                Json.write(StatusReport.rows(config, store, Instant.now())) + "\n");
        default -> send(exchange, 404, "text/plain", "not found\n");
      }
    } catch (RuntimeException e) {
      log.warn("admin request {} failed: {}", exchange.getRequestURI(), e.getMessage());
      try {
        send(exchange, 500, "text/plain", "error: " + e.getClass().getSimpleName() + "\n");
      } catch (IOException | RuntimeException ignored) {
        // the response was already started; nothing more to say
      }
    }
  }

  private void health(HttpExchange exchange) throws IOException {
    boolean up = health.healthy();
    String body =
        "{\"status\":\""
            + (up ? "up" : "down")
            + "\",\"node\":\""
            + config.node().replace("\"", "")
            + "\",\"running_jobs\":"
            + metrics.runningJobs()
            + "}\n";
    send(exchange, up ? 200 : 503, "application/json", body);
  }

  /** Whether the request carries the token; if not, a 403 was sent. */
  private boolean authorized(HttpExchange exchange) throws IOException {
    String token = config.admin().token();
    String given = exchange.getRequestHeaders().getFirst("Authorization");
    if (token == null) {
      send(
          exchange,
          403,
          "text/plain",
          exposed
              ? "off beyond loopback without admin.token\n"
              : "triggering over HTTP is off: set admin.token\n");
      return false;
    }
    if (given == null || !constantTimeEquals(given, "Bearer " + token)) {
      send(
          exchange,
          403,
          "text/plain",
          "a valid 'Authorization: Bearer <admin.token>' is required\n");
      return false;
    }
    return true;
  }

  private void trigger(HttpExchange exchange, String job) throws IOException {
    if (!exposed && !authorized(exchange)) {
      return;
    }
    if (config.job(job).isEmpty()) {
      send(exchange, 404, "text/plain", "unknown job\n");
      return;
    }
    Optional<ExecutionRecord> record = scheduler.trigger(job);
    if (record.isEmpty()) {
      send(
          exchange, 409, "text/plain", "the job is running elsewhere right now; nothing was run\n");
      return;
    }
    String json = Json.write(HistoryReport.rows(List.of(record.get())).get(0));
    send(exchange, 200, "application/json", json + "\n");
  }

  private static boolean constantTimeEquals(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
