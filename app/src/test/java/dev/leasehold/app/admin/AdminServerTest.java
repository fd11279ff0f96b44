package dev.leasehold.app.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The admin endpoint of a running daemon (on the test-only in-memory store, to cut it off). */
class AdminServerTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;
  private Daemon daemon;
  private CompletableFuture<Integer> running;
  private MemoryStoreType.Server store;

  private int start(String adminSection) throws Exception {
    String name = "admin-" + UUID.randomUUID();
    store = MemoryStoreType.server(name);
    Path config = dir.resolve("admin.yaml");
    Files.writeString(
        config,
        "node: admin-node\nstore:\n  type: memory\n  url: memory:"
            + name
            + "\n"
            + adminSection
            + "jobs:\n  - name: tick\n    every: 1s\n    command: [\"true\"]\n"
            + "  - name: daily\n    cron: \"0 2 * * *\"\n    command: [\"true\"]\n");
    daemon = new Daemon(PreparedConfig.load(config, Map.of(), StoreModules.discover()));
    running = CompletableFuture.supplyAsync(this::runDaemon);
    Poll.until("the admin endpoint listens", LIMIT, () -> daemon.adminPort().isPresent());
    return daemon.adminPort().orElseThrow();
  }

  private int runDaemon() {
    try {
      return daemon.run();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (daemon != null) {
      daemon.shutdown();
      assertThat(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    }
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(int port, String path, String authorization)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthIs200WhileTheStoreAnswersAnd503WhenItDoesNot() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");

    HttpResponse<String> up = get(port, "/health");
    assertThat(up.statusCode()).isEqualTo(200);
    assertThat(up.body()).contains("\"status\":\"up\"").contains("\"node\":\"admin-node\"");

    store.setReachable(false);
    Poll.until("health reports the outage", LIMIT, () -> status(port, "/health") == 503);

    store.setReachable(true);
    Poll.until("health recovers", LIMIT, () -> status(port, "/health") == 200);
  }

  @Test
  void metricsCountExecutionsByJobAndOutcome() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");

    Poll.until(
        "an execution is counted",
        LIMIT,
        () ->
            body(port, "/metrics")
                .contains("leasehold_executions_total{job=\"tick\",outcome=\"succeeded\"}"));
    String metrics = body(port, "/metrics");
    assertThat(metrics).contains("leasehold_running_jobs");
  }

  @Test
  void jobsGivesTheSameJsonAsStatus() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");

    HttpResponse<String> jobs = get(port, "/jobs");

    assertThat(jobs.statusCode()).isEqualTo(200);
    assertThat(jobs.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(jobs.body())
        .contains(
            "\"name\" : \"tick\"",
            "\"name\" : \"daily\"",
            "\"next_fire\"",
            "\"holder\"",
            "\"lease_until\"",
            "\"last_fire\"",
            "\"fence\"");
  }

  @Test
  void triggerNeedsTheBearerToken() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n  token: s3cret\n");

    assertThat(post(port, "/jobs/daily/trigger", null).statusCode()).isEqualTo(403);
    assertThat(post(port, "/jobs/daily/trigger", "Bearer wrong").statusCode()).isEqualTo(403);
    assertThat(post(port, "/jobs/nope/trigger", "Bearer s3cret").statusCode()).isEqualTo(404);
    assertThat(get(port, "/jobs/daily/trigger").statusCode()).isEqualTo(405);

    HttpResponse<String> ok = post(port, "/jobs/daily/trigger", "Bearer s3cret");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body())
        .contains("\"job\" : \"daily\"", "\"outcome\" : \"succeeded\"", "\"trigger\" : \"manual\"");
  }

  @Test
  void triggerIsOffWithoutAToken() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");

    HttpResponse<String> refused = post(port, "/jobs/daily/trigger", "Bearer anything");

    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains("set admin.token");
  }

  @Test
  void sixteenClientsStalledMidRequestDoNotBlockHealth() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 16; i++) {
        Socket s = new Socket("127.0.0.1", port);
        // a request line and one header, then nothing: the server waits for the rest
        s.getOutputStream().write("GET /jobs HTTP/1.1\r\nHost: x\r\n".getBytes(UTF_8));
        s.getOutputStream().flush();
        stalled.add(s);
      }

      // generous for a loaded machine; before the fix it never answered while the 16 stalled
      HttpResponse<String> health =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                  .timeout(Duration.ofSeconds(15))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
    } finally {
      for (Socket s : stalled) {
        s.close();
      }
    }
  }

  @Test
  void beyondLoopbackEveryEndpointButHealthNeedsTheToken() throws Exception {
    int port = start("admin:\n  listen: 0.0.0.0:0\n  token: s3cret\n");

    assertThat(get(port, "/health").statusCode()).isEqualTo(200);
    for (String path : List.of("/jobs", "/metrics")) {
      assertThat(get(port, path).statusCode()).as(path).isEqualTo(403);
      assertThat(get(port, path, "Bearer wrong").statusCode()).as(path).isEqualTo(403);
      assertThat(get(port, path, "Bearer s3cret").statusCode()).as(path).isEqualTo(200);
    }
    assertThat(post(port, "/jobs/daily/trigger", null).statusCode()).isEqualTo(403);
    assertThat(post(port, "/jobs/daily/trigger", "Bearer s3cret").statusCode()).isEqualTo(200);
  }

  @Test
  void beyondLoopbackWithoutATokenOnlyHealthAnswersAndAWarningSaysSo() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(AdminServer.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      int port = start("admin:\n  listen: 0.0.0.0:0\n");

      assertThat(get(port, "/health").statusCode()).isEqualTo(200);
      assertThat(get(port, "/jobs").statusCode()).isEqualTo(403);
      assertThat(get(port, "/metrics").statusCode()).isEqualTo(403);
      assertThat(logged.list)
          .filteredOn(e -> e.getLevel() == Level.WARN)
          .extracting(ILoggingEvent::getFormattedMessage)
          .anySatisfy(m -> assertThat(m).contains("beyond loopback without admin.token"));
    } finally {
      logger.detachAppender(logged);
    }
  }

  private static HttpResponse<String> get(int port, String path, String authorization)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", authorization)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int status(int port, String path) {
    try {
      return get(port, path).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  private static String body(int port, String path) {
    try {
      return get(port, path).body();
    } catch (Exception e) {
      return "";
    }
  }
}
