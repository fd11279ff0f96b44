package dev.leasehold.app.runner;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.store.Redaction;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs an HTTP job: one request; a 2xx status is success, anything else (or no complete answer
 * within the timeout) is failure. The request carries {@code X-Leasehold-Job}, {@code
 * X-Leasehold-Fire-Time}, {@code X-Leasehold-Fence} and {@code X-Leasehold-Node}, so the receiver
 * can deduplicate and fence. An interrupt (stop request) cancels the request.
 *
 * <ul>
 *   <li>The job's {@code timeout} bounds the whole exchange: connecting, every redirect, and
 *       reading the body.
 *   <li>Redirects (at most {@value #MAX_REDIRECTS}) are followed here, not by the client: to the
 *       same origin (scheme, host, port) with the job's headers; to another origin without them
 *       (they may hold credentials) and without user info; never from https to http.
 *   <li>At most {@value BoundedBody#MAX_KEPT} bytes of the response body are kept; the rest is not
 *       read.
 *   <li>The URL is logged and recorded with its user info and credential-like query values
 *       redacted.
 * </ul>
 */
public final class HttpJobRunner implements JobRunner {
  private static final Logger log = LoggerFactory.getLogger(HttpJobRunner.class);
  private static final int MAX_BODY_LOGGED = 500;
  static final int MAX_REDIRECTS = 5;

  private final JobAction.Http http;
  private final HttpClient client;

  /** The URL as logged and recorded: redacted once, not on every run. */
  private final String shown;

  public HttpJobRunner(JobAction.Http http, HttpClient client) {
    this.http = http;
    this.client = client;
    this.shown = Redaction.redactUrl(http.url().toString());
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

  @Override
  public JobResult run(JobContext context) throws InterruptedException {
    long deadline = System.nanoTime() + http.timeout().toNanos();
    URI url = http.url();
    String method = http.method();
    String body = http.body();
    boolean sameOrigin = true;
    HttpResponse<BoundedBody.Text> response;
    for (int hop = 0; ; hop++) {
      Duration left = Duration.ofNanos(deadline - System.nanoTime());
      if (left.isNegative() || left.isZero()) {
        return timedOut(shown);
      }
      try {
        response = send(request(context, url, method, body, sameOrigin, left), left);
      } catch (TimeoutException e) {
        return timedOut(shown);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof HttpTimeoutException) {
          return timedOut(shown);
        }
        return JobResult.failed(
            method
                + " "
                + shown
                + " failed: "
                + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
      }
      URI next = redirect(response, url);
      if (next == null) {
        break;
      }
      if (hop == MAX_REDIRECTS) {
        return JobResult.failed(
            method + " " + shown + ": more than " + MAX_REDIRECTS + " redirects");
      }
      if (url.getScheme().equalsIgnoreCase("https")
          && !next.getScheme().equalsIgnoreCase("https")) {
        return JobResult.failed(method + " " + shown + ": refused a redirect from https to http");
      }
      sameOrigin = sameOrigin && sameOrigin(http.url(), next);
      int status = response.statusCode();
      if (status == 303 || ((status == 301 || status == 302) && method.equals("POST"))) {
        method = "GET";
        body = null;
      }
      url = next;
    }
    return result(context, shown, response);
  }

  private HttpResponse<BoundedBody.Text> send(HttpRequest request, Duration left)
      throws InterruptedException, ExecutionException, TimeoutException {
    CompletableFuture<HttpResponse<BoundedBody.Text>> call =
        client.sendAsync(request, BoundedBody.handler());
    try {
      return call.get(left.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException | TimeoutException e) {
      call.cancel(true);
      throw e;
    }
  }

  private HttpRequest request(
      JobContext context, URI url, String method, String body, boolean sameOrigin, Duration left) {
    URI target = sameOrigin ? url : withoutUserInfo(url);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(target)
            .timeout(left)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (sameOrigin) {
      http.headers().forEach(request::header);
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
