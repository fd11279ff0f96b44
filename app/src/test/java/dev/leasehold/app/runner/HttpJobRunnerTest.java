package dev.leasehold.app.runner;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.store.Redaction;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** The HTTP runner against a real JDK HTTP server on loopback. */
class HttpJobRunnerTest {
  private HttpServer server;
  private HttpServer other;
  private final Map<String, String> atOther = new ConcurrentHashMap<>();
  private final Map<String, String> seen = new ConcurrentHashMap<>();
  private final CountDownLatch never = new CountDownLatch(1);

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          seen.put("method", exchange.getRequestMethod());
          seen.put("path", exchange.getRequestURI().getPath());
          exchange.getRequestHeaders().forEach((k, v) -> seen.put(k.toLowerCase(), v.get(0)));
          seen.put(
              "body", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          String path = exchange.getRequestURI().getPath();
          if (path.equals("/endless") || path.equals("/trickle")) {
            exchange.sendResponseHeaders(200, 0); // chunked, never ends
            byte[] chunk = new byte[path.equals("/endless") ? 64 * 1024 : 1];
            try (var out = exchange.getResponseBody()) {
              while (never.getCount() > 0) {
                out.write(chunk);
                out.flush();
                if (path.equals("/trickle")) {
                  Thread.sleep(100);
                }
              }
            } catch (IOException | InterruptedException e) {
              // the client went away
            }
            return;
          }
          if (path.equals("/here") || path.equals("/away")) {
            String to =
                path.equals("/here")
                    ? "/landed"
                    : "http://localhost:" + other.getAddress().getPort() + "/landed";
            exchange.getResponseHeaders().set("Location", to);
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
            return;
          }
          if (path.equals("/said")) {
            byte[] said =
                "{\"error\": \"quota\", \"token\": \"S3cretBodyToken\"}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(503, said.length);
            try (var out = exchange.getResponseBody()) {
              out.write(said);
            }
            return;
          }
          if (exchange.getRequestURI().getPath().equals("/hang")) {
            try {
              never.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          int status = exchange.getRequestURI().getPath().equals("/broken") ? 500 : 204;
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    other.createContext(
        "/",
        exchange -> {
          exchange.getRequestHeaders().forEach((k, v) -> atOther.put(k.toLowerCase(), v.get(0)));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    other.start();
  }

  @AfterEach
  void stopServer() {
    never.countDown();
    server.stop(0);
    other.stop(0);
  }

  private URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  private JobResult call(String method, String path, String body, Duration timeout)
      throws Exception {
    return call(method, path, body, timeout, false);
  }

  private JobResult call(
      String method, String path, String body, Duration timeout, boolean followAnyRedirect)
      throws Exception {
    JobAction.Http action =
        new JobAction.Http(
            method,
            url(path),
            Map.of("X-Family", "li", "Authorization", "Bearer t0ken"),
            body,
            timeout,
            JobAction.Http.DEFAULT_LEASEHOLD_HEADERS,
            followAnyRedirect);
    return new HttpJobRunner(action, HttpJobRunner.newClient()).run(JobContexts.of("report", 9));
  }

  @Test
  void a2xxAnswerIsSuccessAndTheRequestCarriesFenceAndFiring() throws Exception {
    JobResult result = call("POST", "/report", "{\"week\":48}", Duration.ofSeconds(30));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(result.exitCode()).isEqualTo(204);
    assertThat(seen)
        .containsEntry("method", "POST")
        .containsEntry("path", "/report")
        .containsEntry("body", "{\"week\":48}")
        .containsEntry("x-family", "li")
        .containsEntry("x-leasehold-job", "report")
        .containsEntry("x-leasehold-fire-time", "2026-11-30T06:30:00.000Z")
        .containsEntry("x-leasehold-fence", "9")
        .containsEntry("x-leasehold-node", "node-a");
  }

  /**
   * Some receivers answer a request that offers an upgrade to HTTP/2 ({@code Upgrade: h2c}, the JDK
   * client's default on cleartext) with 400, or pass their application an empty body: a job's
   * request is plain HTTP/1.1 instead.
   */
  @Test
  void aCleartextRequestIsPlainHttp11WithoutAnUpgradeOffer() throws Exception {
    JobResult result = call("POST", "/report", "{\"week\":48}", Duration.ofSeconds(30));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(seen)
        .containsEntry("body", "{\"week\":48}")
        .doesNotContainKeys("upgrade", "http2-settings");
    assertThat(seen.getOrDefault("connection", "")).doesNotContainIgnoringCase("upgrade");
    assertThat(result.output()).isEqualTo("HTTP/1.1 204");
    assertThat(seen.get("user-agent")).startsWith("Leasehold/");
  }

  @Test
  void aUserAgentTheJobNamesReplacesLeaseholds() throws Exception {
    JobAction.Http own =
        new JobAction.Http(
            "GET",
            url("/report"),
            Map.of("user-agent", "family-gateway/2"),
            null,
            Duration.ofSeconds(30));
    new HttpJobRunner(own, HttpJobRunner.newClient()).run(JobContexts.of("report", 9));
    assertThat(seen).containsEntry("user-agent", "family-gateway/2");
  }

  @Test
  void aBodyIsSentWithItsTypeUnlessTheJobNamesOne() throws Exception {
    assertThat(typeSent("POST", "{\"week\":48}")).isEqualTo("application/json");
    assertThat(typeSent("PUT", " [1, 2]\n")).isEqualTo("application/json");
    assertThat(typeSent("POST", "week 48")).isEqualTo("text/plain; charset=utf-8");
    assertThat(typeSent("POST", "{\"week\":48} trailing")).isEqualTo("text/plain; charset=utf-8");
    assertThat(typeSent("GET", null)).as("no body, no type").isNull();

    JobAction.Http own =
        new JobAction.Http(
            "POST",
            url("/report"),
            Map.of("content-type", "application/x-www-form-urlencoded"),
            "week=48",
            Duration.ofSeconds(30));
    seen.clear();
    new HttpJobRunner(own, HttpJobRunner.newClient()).run(JobContexts.of("report", 9));
    assertThat(seen).containsEntry("content-type", "application/x-www-form-urlencoded");
  }

  /** The {@code Content-Type} a job with {@code body} sends, or null when none. */
  private String typeSent(String method, String body) throws Exception {
    seen.clear();
    assertThat(call(method, "/report", body, Duration.ofSeconds(30)).outcome())
        .isEqualTo(Outcome.SUCCEEDED);
    return seen.get("content-type");
  }

  @Test
  void theLeaseholdHeadersCanBeRenamed() throws Exception {
    JobAction.Http action =
        new JobAction.Http(
            "POST",
            url("/report"),
            Map.of(),
            null,
            Duration.ofSeconds(30),
            Map.of(
                "job", "X-Job",
                "fire-time", "X-Firing",
                "fence", "X-Fence",
                "node", "X-Writer"));
    JobResult result =
        new HttpJobRunner(action, HttpJobRunner.newClient()).run(JobContexts.of("report", 9));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(seen)
        .containsEntry("x-job", "report")
        .containsEntry("x-firing", "2026-11-30T06:30:00.000Z")
        .containsEntry("x-fence", "9")
        .containsEntry("x-writer", "node-a")
        .doesNotContainKey("x-leasehold-fence");
  }

  @Test
  void aNon2xxAnswerIsFailureWithTheStatus() throws Exception {
    JobResult result = call("GET", "/broken", null, Duration.ofSeconds(30));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.exitCode()).isEqualTo(500);
    assertThat(result.detail()).startsWith("HTTP 500");
  }

  @Test
  void theHistoryKeepsTheStatusLineAndTheBodyScrubbedOfSecrets() throws Exception {
    Redaction.register("S3cretBodyToken");
    JobResult result = call("GET", "/said", null, Duration.ofSeconds(30));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.output())
        .isEqualTo("HTTP/1.1 503\n{\"error\": \"quota\", \"token\": \"***\"}");
    assertThat(call("GET", "/fine", null, Duration.ofSeconds(30)).output())
        .as("an answer without a body")
        .isEqualTo("HTTP/1.1 204");
  }

  @Test
  void startHoldsNoThreadWhileWaitingAndCancellingAbortsTheExchange() throws Exception {
    JobAction.Http action =
        new JobAction.Http("GET", url("/hang"), Map.of(), null, Duration.ofSeconds(30));
    CompletableFuture<JobResult> body =
        new HttpJobRunner(action, HttpJobRunner.newClient()).start(JobContexts.of("report", 9));

    assertThat(body).isNotDone(); // the server holds its answer; start returned anyway
    assertThat(body.cancel(true)).isTrue();
    assertThat(body).isCancelled();
  }

  @Test
  void aStartedExchangeCompletesWithTheAnswer() throws Exception {
    JobAction.Http action =
        new JobAction.Http("POST", url("/broken"), Map.of(), "{}", Duration.ofSeconds(30));
    JobResult result =
        new HttpJobRunner(action, HttpJobRunner.newClient())
            .start(JobContexts.of("report", 9))
            .get();

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.exitCode()).isEqualTo(500);
    assertThat(seen).containsEntry("method", "POST").containsEntry("x-leasehold-fence", "9");
  }

  @Test
  @Timeout(60)
  void anInterruptedRunCancelsTheRequest() throws Exception {
    Thread caller = Thread.currentThread();
    Thread interrupter =
        new Thread(
            () -> {
              while (!seen.containsKey("path")) {
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
              caller.interrupt();
            });
    interrupter.start();
    try {
      call("GET", "/hang", null, Duration.ofSeconds(30));
      org.junit.jupiter.api.Assertions.fail("the run should have been interrupted");
    } catch (InterruptedException expected) {
      // as a stop interrupts a blocking run
    } finally {
      interrupter.join();
      Thread.interrupted();
    }
  }

  @Test
  void noAnswerWithinTheTimeoutIsFailure() throws Exception {
    JobResult result = call("GET", "/hang", null, Duration.ofMillis(300));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("no complete answer within 300 ms");
  }

  @Test
  void aRedirectToTheSameOriginKeepsTheHeaders() throws Exception {
    JobResult result = call("GET", "/here", null, Duration.ofSeconds(10));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(seen)
        .containsEntry("path", "/landed")
        .containsEntry("authorization", "Bearer t0ken");
  }

  @Test
  void aRedirectToAnotherOriginIsNotFollowedUnlessTheJobSaysAny() throws Exception {
    JobResult result = call("GET", "/away", null, Duration.ofSeconds(10));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail())
        .contains("answered 302, a redirect to another origin (http://localhost:")
        .contains("not followed; set follow-redirects: any");
    assertThat(atOther).isEmpty();
  }

  @Test
  void aRedirectToAnotherOriginCarriesNoCredentialsOrCustomHeaders() throws Exception {
    JobResult result = call("GET", "/away", null, Duration.ofSeconds(10), true);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(atOther).containsEntry("x-leasehold-job", "report");
    assertThat(atOther).doesNotContainKeys("authorization", "x-family");
  }

  @Test
  @Timeout(60)
  void theTimeoutBoundsReadingABodyThatNeverEnds() throws Exception {
    JobResult result = call("GET", "/trickle", null, Duration.ofSeconds(1));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("no complete answer within 1000 ms");
  }

  @Test
  @Timeout(60)
  void onlyTheStartOfAnEndlessBodyIsKept() throws Exception {
    JobResult result = call("GET", "/endless", null, Duration.ofSeconds(30));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(result.output()).startsWith("HTTP/1.1 200\n").endsWith("…");
    assertThat(result.output().getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(
            ExecutionRecord.OUTPUT_TAIL + "…".getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void userInfoAndAnApiKeyInTheUrlAreNeitherLoggedNorRecorded() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(HttpJobRunner.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      URI secretUrl =
          URI.create(
              "http://user:Pa55word@127.0.0.1:"
                  + server.getAddress().getPort()
                  + "/broken?api_key=K3yValue&x=1");
      JobAction.Http action =
          new JobAction.Http("GET", secretUrl, Map.of(), null, Duration.ofSeconds(10));
      JobResult result =
          new HttpJobRunner(action, HttpJobRunner.newClient()).run(JobContexts.of("report", 9));

      assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
      List<String> lines = logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(lines).isNotEmpty();
      assertThat(String.join("\n", lines) + result.detail()).doesNotContain("Pa55word", "K3yValue");
    } finally {
      logger.detachAppender(logged);
    }
  }

  @Test
  void aRefusedConnectionIsFailure() throws Exception {
    server.stop(0);
    JobResult result = call("GET", "/gone", null, Duration.ofSeconds(5));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("failed");
  }
}
