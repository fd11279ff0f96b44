package dev.leasehold.app.runner;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.leasehold.app.config.BuildInfo;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.store.Redaction;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs an HTTP job: one request; a 2xx status is success, anything else (or no complete answer
 * within the timeout) is failure. The request carries {@code X-Leasehold-Job}, {@code
 * X-Leasehold-Fire-Time}, {@code X-Leasehold-Fence} and {@code X-Leasehold-Node}, so the receiver
 * can deduplicate and fence. The exchange holds no thread while it waits ({@link #start}); a stop
 * (the future cancelled, or the thread of {@link #run} interrupted) aborts the request.
 *
 * <ul>
 *   <li>The job's {@code timeout} bounds the whole exchange: connecting, every redirect, and
 *       reading the body.
 *   <li>Redirects (at most {@value #MAX_REDIRECTS}) are followed here, not by the client: to the
 *       same origin (scheme, host, port), or from http to https on the same host, with the job's
 *       headers; to another origin only with {@code follow-redirects: any}, and then without the
 *       headers (they may hold credentials) and user info, never to a loopback, link-local or
 *       wildcard address unless the job's own host is one, and never re-sending a body (a 307 or
 *       308 to another origin fails the run); never from https to http. A redirect not followed
 *       fails the run, naming where it pointed.
 *   <li>At most {@value BoundedBody#MAX_KEPT} bytes of the response body are kept; the rest is not
 *       read.
 *   <li>The URL is logged and recorded with its user info and credential-like query values
 *       redacted.
 * </ul>
 */
public final class HttpJobRunner implements AsyncJobRunner {
  private static final Logger log = LoggerFactory.getLogger(HttpJobRunner.class);
  private static final int MAX_BODY_LOGGED = 500;
  static final int MAX_REDIRECTS = 5;
  private static final JsonFactory JSON = new JsonFactory();
  private static final String USER_AGENT = "Leasehold/" + BuildInfo.version();

  /** Ends exchanges at their job's timeout; one thread for every HTTP job of the daemon. */
  private static final ScheduledThreadPoolExecutor TIMEOUTS = timeouts();

  private static ScheduledThreadPoolExecutor timeouts() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "leasehold-http-timeout");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true); // an exchange that ended leaves nothing behind
    return timer;
  }

  private final JobAction.Http http;
  private final HttpClient client;

  /** The URL as logged and recorded: redacted once, not on every run. */
  private final String shown;

  /** The {@code Content-Type} sent with the body when the job's headers name none. */
  private final String bodyType;

  private final boolean headersNameType;

  public HttpJobRunner(JobAction.Http http, HttpClient client) {
    this.http = http;
    this.client = client;
    this.shown = Redaction.redactUrl(http.url().toString());
    this.bodyType = http.body() == null ? null : contentTypeOf(http.body());
    this.headersNameType =
        http.headers().keySet().stream().anyMatch(name -> name.equalsIgnoreCase("Content-Type"));
  }

  /**
   * The type a body is sent as when the job does not say: {@code application/json} when it is a
   * JSON object or array, else {@code text/plain; charset=utf-8}. Receivers that read a body by its
   * type (JSON middleware, webhook endpoints) would otherwise see none, or parse it as a form.
   */
  static String contentTypeOf(String body) {
    try (JsonParser parser = JSON.createParser(body)) {
      JsonToken first = parser.nextToken();
      if (first == JsonToken.START_OBJECT || first == JsonToken.START_ARRAY) {
        parser.skipChildren();
        if (parser.nextToken() == null) {
          return "application/json";
        }
      }
    } catch (IOException e) {
      // not JSON
    }
    return "text/plain; charset=utf-8";
  }

  /**
   * A client shared by every HTTP job of the daemon; redirects are followed by the runner. Its
   * callbacks (reading the bounded body, completing the answer) never block, so a few threads serve
   * them all: the client's default, a pool that grows with the requests in flight, started hundreds
   * of threads per daemon when a thousand jobs fired in the same second.
   */
  public static HttpClient newClient() {
    return HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER)
        .executor(callbackThreads())
        .build();
  }

  /**
   * A request to {@code url} as every HTTP job and notification sends it: plain HTTP/1.1 to an
   * {@code http} URL, and over TLS whatever the handshake agrees (HTTP/2 or HTTP/1.1). The client's
   * default would offer an upgrade to HTTP/2 ({@code Upgrade: h2c}) with every cleartext request;
   * some receivers answer such a request with 400 or hand their application an empty body while
   * answering 200, so a job would lose its body and still be recorded as succeeded. It says it
   * comes from Leasehold ({@code User-Agent: Leasehold/<version>}) unless headers set later name
   * another {@code User-Agent} with {@code setHeader}.
   */
  public static HttpRequest.Builder newRequest(URI url) {
    HttpRequest.Builder request = HttpRequest.newBuilder(url).setHeader("User-Agent", USER_AGENT);
    return "http".equalsIgnoreCase(url.getScheme())
        ? request.version(HttpClient.Version.HTTP_1_1)
        : request;
  }

  private static ExecutorService callbackThreads() {
    AtomicInteger n = new AtomicInteger();
    return Executors.newFixedThreadPool(
        Math.max(2, Runtime.getRuntime().availableProcessors()),
        r -> {
          Thread t = new Thread(r, "leasehold-http-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * Starts the exchange and returns at once; no thread waits for the answer. The future completes
   * with the result (a failure, a timeout or a status); cancelling it aborts the request in flight.
   */
  @Override
  public CompletableFuture<JobResult> start(JobContext context) {
    Exchange exchange = new Exchange(context);
    exchange.send();
    return exchange.result;
  }

  /** One job's exchange: its hops (redirects), the deadline over all of them, the request. */
  private final class Exchange {
    private final JobContext context;
    private final long deadline = System.nanoTime() + http.timeout().toNanos();
    private final CompletableFuture<JobResult> result = new CompletableFuture<>();
    private final ScheduledFuture<?> timeout;
    private URI url = http.url();
    private String method = http.method();
    private String body = http.body();
    private boolean sameOrigin = true;
    private int hop;
    private volatile CompletableFuture<?> inFlight;

    Exchange(JobContext context) {
      this.context = context;
      // the job's timeout bounds the whole exchange, reading the body included (the request's
      // own timeout ends with the response's headers)
      this.timeout =
          TIMEOUTS.schedule(
              () -> {
                if (result.complete(timedOut(shown))) {
                  abort();
                }
              },
              http.timeout().toNanos(),
              TimeUnit.NANOSECONDS);
      result.whenComplete(
          (r, e) -> {
            timeout.cancel(false);
            if (result.isCancelled()) {
              abort(); // a stop: the request in flight is aborted
            }
          });
    }

    private void abort() {
      CompletableFuture<?> call = inFlight;
      if (call != null) {
        call.cancel(true);
      }
    }

    /** Sends the current hop; its answer comes back in {@link #answered}. */
    void send() {
      Duration left = Duration.ofNanos(deadline - System.nanoTime());
      if (left.isNegative() || left.isZero()) {
        result.complete(timedOut(shown));
        return;
      }
      CompletableFuture<HttpResponse<BoundedBody.Text>> call;
      try {
        call =
            client.sendAsync(
                request(context, url, method, body, sameOrigin, left), BoundedBody.handler());
      } catch (RuntimeException e) {
        result.complete(failed(e));
        return;
      }
      inFlight = call;
      if (result.isDone()) {
        call.cancel(true); // stopped or timed out while this hop was being sent
        return;
      }
      call.whenComplete(this::answered);
    }

    private void answered(HttpResponse<BoundedBody.Text> response, Throwable failure) {
      if (result.isDone()) {
        return;
      }
      if (failure != null) {
        Throwable cause =
            failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        result.complete(cause instanceof HttpTimeoutException ? timedOut(shown) : failed(cause));
        return;
      }
      URI next = redirect(response, url);
      if (next == null) {
        result.complete(result(context, shown, response));
        return;
      }
      if (hop == MAX_REDIRECTS) {
        result.complete(
            JobResult.failed(method + " " + shown + ": more than " + MAX_REDIRECTS + " redirects"));
        return;
      }
      if (url.getScheme().equalsIgnoreCase("https")
          && !next.getScheme().equalsIgnoreCase("https")) {
        result.complete(
            JobResult.failed(method + " " + shown + ": refused a redirect from https to http"));
        return;
      }
      boolean near = sameOrigin(http.url(), next) || upgrade(http.url(), next);
      if (!near) {
        String refused = refusedRedirect(response.statusCode(), next);
        if (refused != null) {
          result.complete(JobResult.failed(method + " " + shown + ": " + refused));
          return;
        }
      }
      sameOrigin = sameOrigin && near;
      int status = response.statusCode();
      if (status == 303 || ((status == 301 || status == 302) && method.equals("POST"))) {
        method = "GET";
        body = null;
      }
      url = next;
      hop++;
      send();
    }

    private JobResult failed(Throwable cause) {
      return JobResult.failed(
          method
              + " "
              + shown
              + " failed: "
              + cause.getClass().getSimpleName()
              + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
    }
  }

  private HttpRequest request(
      JobContext context, URI url, String method, String body, boolean sameOrigin, Duration left) {
    URI target = sameOrigin ? url : withoutUserInfo(url);
    HttpRequest.Builder request =
        newRequest(target)
            .timeout(left)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (sameOrigin) {
      http.headers().forEach(request::setHeader);
    }
    if (body != null && !(sameOrigin && headersNameType)) {
      request.header("Content-Type", bodyType);
    }
    return request
        .setHeader(http.leaseholdHeaders().get("job"), context.job())
        .setHeader(http.leaseholdHeaders().get("fire-time"), FireTimes.format(context.firing()))
        .setHeader(http.leaseholdHeaders().get("fence"), Long.toString(context.fence()))
        .setHeader(http.leaseholdHeaders().get("node"), context.node())
        .build();
  }

  private JobResult result(
      JobContext context, String shown, HttpResponse<BoundedBody.Text> response) {
    int status = response.statusCode();
    boolean success = status >= 200 && status < 300;
    String body = response.body().text();
    // a 2xx answer at DEBUG: the execution line (INFO) already says "succeeded" and the history
    // keeps the status; at a thousand firings a second a second INFO line per run is a cost
    if (!success || log.isDebugEnabled()) {
      MDC.put("job", context.job());
      try {
        if (success) {
          log.debug("{} {} answered {}", http.method(), shown, status);
        } else {
          log.info("{} {} answered {}", http.method(), shown, status);
        }
        if (!body.isBlank()) {
          log.debug("response body: {}", truncate(body));
        }
      } finally {
        MDC.remove("job");
      }
    }
    String output = output(response, body);
    if (success) {
      return new JobResult(Outcome.SUCCEEDED, status, null, output);
    }
    return new JobResult(Outcome.FAILED, status, "HTTP " + status + ": " + truncate(body), output);
  }

  /**
   * What the history keeps of an answer: the status line and the start of the body, at most {@value
   * ExecutionRecord#OUTPUT_TAIL} bytes in all, scrubbed of secrets.
   */
  static String output(HttpResponse<?> response, String body) {
    String statusLine =
        (response.version() == HttpClient.Version.HTTP_2 ? "HTTP/2 " : "HTTP/1.1 ")
            + response.statusCode();
    if (body == null || body.isBlank()) {
      return statusLine;
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    int room = ExecutionRecord.OUTPUT_TAIL - statusLine.length() - 1;
    String start = body;
    if (bytes.length > room) {
      // whole characters only: a multi-byte sequence cut at the end is dropped, not replaced
      try {
        start =
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.IGNORE)
                    .decode(ByteBuffer.wrap(bytes, 0, room))
                + "…";
      } catch (CharacterCodingException e) {
        throw new IllegalStateException("ignoring malformed input cannot fail", e);
      }
    }
    return Redaction.scrub(statusLine + "\n" + start);
  }

  private JobResult timedOut(String shown) {
    return JobResult.failed(
        http.method()
            + " "
            + shown
            + " failed: no complete answer within "
            + http.timeout().toMillis()
            + " ms");
  }

  /** The {@code Location} of a redirect, resolved against {@code url}; null when none. */
  private static URI redirect(HttpResponse<?> response, URI url) {
    int status = response.statusCode();
    if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
      return null;
    }
    return response
        .headers()
        .firstValue("Location")
        .map(
            location -> {
              try {
                return url.resolve(location);
              } catch (IllegalArgumentException e) {
                return null;
              }
            })
        .filter(u -> u.getScheme() != null && u.getHost() != null)
        .orElse(null);
  }

  /**
   * Why a redirect to another origin is not followed, or {@code null} when it is: only with {@code
   * follow-redirects: any}, never re-sending a body (307, 308), never towards this machine or a
   * link-local address (cloud metadata) from a job whose own host is not one.
   */
  private String refusedRedirect(int status, URI next) {
    String where = Redaction.redactUrl(next.getScheme() + "://" + next.getRawAuthority());
    if (!http.followAnyRedirect()) {
      return "answered "
          + status
          + ", a redirect to another origin ("
          + where
          + "), not followed; set follow-redirects: any to follow it";
    }
    if (status == 307 || status == 308) {
      return "answered " + status + " to another origin (" + where + "): the body is not re-sent";
    }
    if (!local(http.url().getHost()) && local(next.getHost())) {
      return "refused a redirect to a loopback or link-local address (" + where + ")";
    }
    return null;
  }

  /** Whether {@code host} is or resolves to a loopback, link-local or wildcard address. */
  private static boolean local(String host) {
    try {
      for (java.net.InetAddress a : java.net.InetAddress.getAllByName(host)) {
        if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress()) {
          return true;
        }
      }
      return false;
    } catch (java.net.UnknownHostException e) {
      return false; // the request itself will fail
    }
  }

  /** From http to https on the same host (any port): as safe as staying. */
  private static boolean upgrade(URI from, URI to) {
    return from.getScheme().equalsIgnoreCase("http")
        && to.getScheme().equalsIgnoreCase("https")
        && from.getHost().equalsIgnoreCase(to.getHost());
  }

  static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme())
        && a.getHost().equalsIgnoreCase(b.getHost())
        && port(a) == port(b);
  }

  private static int port(URI u) {
    if (u.getPort() >= 0) {
      return u.getPort();
    }
    return u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  private static URI withoutUserInfo(URI u) {
    if (u.getRawUserInfo() == null) {
      return u;
    }
    String s = u.toString();
    return URI.create(s.replace(u.getRawUserInfo() + "@", ""));
  }

  private static String truncate(String body) {
    String flat = Objects.requireNonNullElse(body, "").strip().replaceAll("\\s+", " ");
    return flat.length() <= MAX_BODY_LOGGED ? flat : flat.substring(0, MAX_BODY_LOGGED) + "…";
  }

  /** For tests: the headers a job sends, by name. */
  Map<String, String> headers() {
    return http.headers();
  }
}
