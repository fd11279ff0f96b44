package dev.leasehold.app.runner;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs an HTTP job: one request; a 2xx status is success, anything else (or no answer within the
 * timeout) is failure. The request carries {@code X-Leasehold-Job}, {@code X-Leasehold-Fire-Time},
 * {@code X-Leasehold-Fence} and {@code X-Leasehold-Node}, so the receiver can deduplicate and
 * fence. An interrupt (stop request) cancels the request.
 */
public final class HttpJobRunner implements JobRunner {
  private static final Logger log = LoggerFactory.getLogger(HttpJobRunner.class);
  private static final int MAX_BODY_LOGGED = 500;

  private final JobAction.Http http;
  private final HttpClient client;

  public HttpJobRunner(JobAction.Http http, HttpClient client) {
    this.http = http;
    this.client = client;
  }

  /** A client shared by every HTTP job of the daemon. */
  public static HttpClient newClient() {
    return HttpClient.newBuilder()
        .connectTimeout(java.time.Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NORMAL)
        .build();
  }

  @Override
  public JobResult run(JobContext context) throws InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(http.url())
            .timeout(http.timeout())
            .method(
                http.method(),
                http.body() == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(http.body()));
    http.headers().forEach(request::header);
    request
        .setHeader("X-Leasehold-Job", context.job())
        .setHeader("X-Leasehold-Fire-Time", FireTimes.format(context.firing()))
        .setHeader("X-Leasehold-Fence", Long.toString(context.fence()))
        .setHeader("X-Leasehold-Node", context.node());

    CompletableFuture<HttpResponse<String>> call =
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> response;
    try {
      response = call.get();
    } catch (InterruptedException e) {
      call.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      String why =
          cause instanceof HttpTimeoutException
              ? "no answer within " + http.timeout().toMillis() + " ms"
              : cause.getClass().getSimpleName()
                  + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
      return JobResult.failed(http.method() + " " + http.url() + " failed: " + why);
    }
    int status = response.statusCode();
    MDC.put("job", context.job());
    try {
      log.info("{} {} answered {}", http.method(), http.url(), status);
      String body = response.body();
      if (body != null && !body.isBlank()) {
        log.debug("response body: {}", truncate(body));
      }
    } finally {
      MDC.remove("job");
    }
    if (status >= 200 && status < 300) {
      return new JobResult(Outcome.SUCCEEDED, status, null);
    }
    return new JobResult(
        Outcome.FAILED, status, "HTTP " + status + ": " + truncate(response.body()));
  }

  private static String truncate(String body) {
    if (body == null) {
      return "";
    }
    String flat = body.strip().replaceAll("\\s+", " ");
    return flat.length() <= MAX_BODY_LOGGED ? flat : flat.substring(0, MAX_BODY_LOGGED) + "…";
  }
}
