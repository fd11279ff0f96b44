package dev.leasehold.app.runner;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP runner against a real JDK HTTP server on loopback. */
class HttpJobRunnerTest {
  private HttpServer server;
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
  }

  @AfterEach
  void stopServer() {
    never.countDown();
    server.stop(0);
  }

  private URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  private JobResult call(String method, String path, String body, Duration timeout)
      throws Exception {
    JobAction.Http action =
        new JobAction.Http(method, url(path), Map.of("X-Family", "li"), body, timeout);
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

  @Test
  void aNon2xxAnswerIsFailureWithTheStatus() throws Exception {
    JobResult result = call("GET", "/broken", null, Duration.ofSeconds(30));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.exitCode()).isEqualTo(500);
    assertThat(result.detail()).startsWith("HTTP 500");
  }

  @Test
  void noAnswerWithinTheTimeoutIsFailure() throws Exception {
    JobResult result = call("GET", "/hang", null, Duration.ofMillis(300));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("no answer within 300 ms");
  }

  @Test
  void aRefusedConnectionIsFailure() throws Exception {
    server.stop(0);
    JobResult result = call("GET", "/gone", null, Duration.ofSeconds(5));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("failed");
  }
}
