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
import java.util.Arrays;
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
    return start(adminSection, "");
  }

  private int start(String adminSection, String more) throws Exception {
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
            + "  - name: daily\n    cron: \"0 2 * * *\"\n    command: [\"true\"]\n"
            + more);
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

  private static HttpResponse<String> getWith(int port, String path, String token)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + token)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyChangeIsAuditedRefusedOnesTooWithTheKindOfTokenAndTheClient() throws Exception {
    String admin = "s3cret-admin-token-01";
    String read = "s3cret-read-token-02";
    int port =
        start(
            "admin:\n  listen: 127.0.0.1:0\n  token: " + admin + "\n  read-token: " + read + "\n");

    assertThat(
            post(port, "/jobs/daily/pause?reason=why%20" + admin, "Bearer " + admin).statusCode())
        .isEqualTo(200);
    assertThat(post(port, "/jobs/daily/resume", "Bearer " + read).statusCode()).isEqualTo(403);
    assertThat(post(port, "/jobs/nope/pause", "Bearer " + admin).statusCode()).isEqualTo(404);
    assertThat(post(port, "/jobs/daily/trigger", "Bearer not-" + admin).statusCode())
        .isEqualTo(401);
    assertThat(post(port, "/jobs/daily/resume", null).statusCode()).isEqualTo(401);
    assertThat(post(port, "/jobs/daily/resume?catch_up=true", "Bearer " + admin).statusCode())
        .isEqualTo(200);

    assertThat(get(port, "/audit").statusCode()).as("a token is configured").isEqualTo(401);
    HttpResponse<String> bad = getWith(port, "/audit?limit=0", read);
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).startsWith("limit:");
    HttpResponse<String> answer = getWith(port, "/audit?limit=10", read);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).doesNotContain(admin).doesNotContain(read);
    com.fasterxml.jackson.databind.JsonNode rows =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer.body());
    List<String> seen = new ArrayList<>();
    for (com.fasterxml.jackson.databind.JsonNode row : rows) {
      assertThat(row.path("via").asText()).isEqualTo("http");
      assertThat(row.path("client").asText()).isEqualTo("127.0.0.1");
      assertThat(row.path("node").asText()).isEqualTo("admin-node");
      seen.add(
          String.join(
              " ",
              row.path("action").asText(),
              row.path("job").asText(),
              row.path("result").asText(),
              row.path("token").asText(),
              row.path("detail").asText().replaceAll(":.*", "")));
    }
    assertThat(seen)
        .as("newest first")
        .containsExactly(
            "resume daily ok admin HTTP 200",
            "resume daily refused none HTTP 401",
            "trigger daily refused wrong HTTP 401",
            "pause nope refused admin HTTP 404",
            "resume daily refused read HTTP 403",
            "pause daily ok admin HTTP 200");
    assertThat(rows.get(0).path("detail").asText()).isEqualTo("HTTP 200: resumed with catch_up");
    assertThat(rows.get(5).path("detail").asText()).startsWith("HTTP 200: reason: why ");
    assertThat(rows.get(5).path("by").asText())
        .isEqualTo("admin token from 127.0.0.1 (http, node admin-node)");
    assertThat(answer.headers().firstValue("X-Leasehold-Audit-Detail")).isEmpty();
    HttpResponse<String> page = getWith(port, "/api/audit?limit=2", admin);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("resumed with catch_up");
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
  void historyGivesEachRunWithItsOutputAsJson() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    Poll.until(
        "a run of tick is in the history",
        LIMIT,
        () -> body(port, "/history?job=tick&limit=5").contains("\"job\" : \"tick\""));

    HttpResponse<String> history = get(port, "/history?job=tick&limit=1");
    assertThat(history.statusCode()).isEqualTo(200);
    assertThat(history.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(history.body())
        .contains("\"outcome\" : \"succeeded\"", "\"duration_ms\"", "\"output\"")
        .doesNotContain("\"job\" : \"daily\"");
    assertThat(get(port, "/history?limit=0").statusCode()).isEqualTo(400);
    assertThat(get(port, "/history?job=no%20such").statusCode()).isEqualTo(400);
  }

  @Test
  void historyPagesBackInTimeWithBefore() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    Poll.until(
        "tick has run four times",
        LIMIT,
        () -> fireTimes(body(port, "/history?job=tick&limit=4")).size() == 4);

    List<String> first = fireTimes(body(port, "/history?job=tick&limit=2"));
    String cursor = first.get(first.size() - 1);
    HttpResponse<String> next = get(port, "/history?job=tick&limit=2&before=" + cursor);
    assertThat(next.statusCode()).isEqualTo(200);
    List<String> second = fireTimes(next.body());
    assertThat(second).hasSize(2).doesNotContainAnyElementsOf(first);
    assertThat(second)
        .as("strictly older than the cursor, latest firing first")
        .allMatch(t -> t.compareTo(cursor) < 0)
        .isSortedAccordingTo(java.util.Comparator.reverseOrder());
    assertThat(body(port, "/history?job=tick&before=2000-01-01T00:00:00Z")).contains("[ ]");

    HttpResponse<String> bad = get(port, "/history?job=tick&before=yesterday");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).startsWith("before: ").contains("ISO-8601");
    assertThat(get(port, "/history?before=2026-13-01T00:00:00Z").statusCode()).isEqualTo(400);
  }

  /** The {@code fire_time} of each row of a {@code /history} answer, in order. */
  private static List<String> fireTimes(String json) {
    List<String> times = new ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"fire_time\" : \"([^\"]+)\"").matcher(json);
    while (m.find()) {
      times.add(m.group(1));
    }
    return times;
  }

  @Test
  void oneJobComesWithItsTrackRecord() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    Poll.until("tick has run", LIMIT, () -> body(port, "/jobs/tick").contains("\"outcome\""));
    assertThat(body(port, "/jobs/tick"))
        .contains("\"record\" : {")
        .contains("\"success_rate\" : 100.0")
        .contains("\"failing_since\" : null")
        .containsPattern("\"last_success\" : \"20\\d\\d-");
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
    int port = start("admin:\n  listen: 127.0.0.1:0\n  token: s3cret-admin-token-01\n");

    assertUnauthorized(post(port, "/jobs/daily/trigger", null));
    assertUnauthorized(post(port, "/jobs/daily/trigger", "Bearer wrong"));
    assertThat(post(port, "/jobs/nope/trigger", "Bearer s3cret-admin-token-01").statusCode())
        .isEqualTo(404);
    assertThat(get(port, "/jobs/daily/trigger").statusCode()).isEqualTo(405);

    HttpResponse<String> ok = post(port, "/jobs/daily/trigger", "Bearer s3cret-admin-token-01");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body())
        .contains("\"job\" : \"daily\"", "\"outcome\" : \"succeeded\"", "\"trigger\" : \"manual\"");
  }

  @Test
  void pauseAndResumeNeedTheTokenAndShowInJobs() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n  token: s3cret-admin-token-01\n");

    assertUnauthorized(post(port, "/jobs/daily/pause", null));
    assertUnauthorized(post(port, "/jobs/daily/resume", "Bearer wrong"));
    assertThat(post(port, "/jobs/nope/pause", "Bearer s3cret-admin-token-01").statusCode())
        .isEqualTo(404);
    assertThat(
            post(
                    port,
                    "/jobs/daily/pause?reason=" + "x".repeat(501),
                    "Bearer s3cret-admin-token-01")
                .statusCode())
        .isEqualTo(400);

    HttpResponse<String> paused =
        post(
            port,
            "/jobs/daily/pause?reason=db%20move&stop_running=true",
            "Bearer s3cret-admin-token-01");
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(paused.body())
        .contains("\"by\" : \"admin@admin-node\"", "\"reason\" : \"db move\"")
        .contains("\"stop_running\" : true");
    assertThat(get(port, "/jobs").body()).contains("\"reason\" : \"db move\"");

    HttpResponse<String> resumed =
        post(port, "/jobs/daily/resume?catch_up=true", "Bearer s3cret-admin-token-01");
    assertThat(resumed.statusCode()).isEqualTo(200);
    assertThat(resumed.body()).contains("\"resumed\" : true", "\"catch_up\" : true");
    assertThat(get(port, "/jobs").body()).contains("\"paused\" : null");
    assertThat(post(port, "/jobs/daily/resume", "Bearer s3cret-admin-token-01").body())
        .contains("\"resumed\" : false");
  }

  @Test
  void aPingNeedsItsChecksOwnKeyAndNoAnswerHoldsAKey() throws Exception {
    String key = "nas-scrub-ping-key-5f0c9a";
    Path events = dir.resolve("events.log");
    int port =
        start(
            "admin:\n  listen: 127.0.0.1:0\n  token: s3cret-admin-token-01\n",
            "checks:\n  - name: nas-scrub\n    every: 1h\n    grace: 10m\n    ping-key: "
                + key
                + "\n    notify:\n      command: [\"sh\", \"-c\", \"cat >> "
                + events
                + "; echo >> "
                + events
                + "\"]\n");

    assertUnauthorized(post(port, "/ping/nas-scrub", null));
    assertUnauthorized(post(port, "/ping/nas-scrub", "Bearer short"));
    assertUnauthorized(post(port, "/ping/nas-scrub", "Bearer " + key + "x"));
    assertUnauthorized(post(port, "/ping/nas-scrub/fail", "Bearer " + key.substring(1)));
    assertUnauthorized(post(port, "/ping/nas-scrub", "Bearer s3cret-admin-token-01"));
    assertThat(post(port, "/ping/nas-scrub", "Bearer wrong").body())
        .as("the challenge names the ping key")
        .contains("Authorization: Bearer <ping-key>");
    assertThat(post(port, "/ping/nope", "Bearer " + key).statusCode()).isEqualTo(404);
    assertThat(get(port, "/ping/nas-scrub").statusCode()).isEqualTo(405);
    assertThat(get(port, "/checks").body()).contains("\"state\" : \"new\"");

    HttpResponse<String> ping = post(port, "/ping/nas-scrub", "bearer " + key);
    assertThat(ping.statusCode()).isEqualTo(200);
    assertThat(ping.body()).contains("\"check\" : \"nas-scrub\"", "\"ping\" : \"ok\"");
    HttpResponse<String> fail = post(port, "/ping/nas-scrub/fail", "Bearer " + key);
    assertThat(fail.statusCode()).isEqualTo(200);
    assertThat(fail.body()).contains("\"ping\" : \"fail\"");

    Poll.until(
        "the fail ping's event reaches the notifier",
        LIMIT,
        () -> read(events).contains("\"event\":\"failed\""));
    String sent = Files.readString(events);
    assertThat(sent)
        .contains("\"job\":\"nas-scrub\"", "\"check\":true", "\"id\":\"check:nas-scrub:failed:");
    String checks = get(port, "/checks").body();
    assertThat(checks).contains("\"state\" : \"failed\"", "\"next_deadline\"");
    String status = get(port, "/status").body();
    assertThat(status).contains("checks:", "nas-scrub", "failed");
    for (String answer :
        List.of(
            sent,
            checks,
            status,
            get(port, "/status?format=json").body(),
            get(port, "/api/status").body(),
            get(port, "/jobs").body(),
            get(port, "/metrics").body())) {
      assertThat(answer).doesNotContain(key);
    }
  }

  @Test
  void aPingFromAnotherOriginIsRefused() throws Exception {
    String key = "nas-scrub-ping-key-5f0c9a";
    int port =
        start(
            "admin:\n  listen: 127.0.0.1:0\n",
            "checks:\n  - name: nas-scrub\n    every: 1h\n    ping-key: " + key + "\n");
    HttpResponse<String> refused =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ping/nas-scrub"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + key)
                .header("Origin", "http://evil.example")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(post(port, "/ping/nas-scrub", "Bearer " + key).statusCode())
        .as("no admin token needed: the ping key is the credential")
        .isEqualTo(200);
  }

  @Test
  void triggerIsOffWithoutAToken() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");

    HttpResponse<String> refused = post(port, "/jobs/daily/trigger", "Bearer anything");

    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains("set admin.token");
  }

  @Test
  void everyPostAnswersAMissingOrWrongTokenAlike() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n  token: s3cret-admin-token-01\n");

    for (String path :
        List.of("/jobs/daily/trigger", "/jobs/daily/pause", "/jobs/daily/resume", "/reload")) {
      // two per route: eight wrong tokens stay below the per-client limit of ten a minute
      for (String authorization : Arrays.asList(null, "Bearer wrong")) {
        HttpResponse<String> refused = post(port, path, authorization);
        assertUnauthorized(refused);
        assertThat(refused.body()).as(path).contains("Authorization: Bearer <admin.token>");
      }
    }
    assertThat(get(port, "/jobs").body()).contains("\"paused\" : null");
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
    int port = start("admin:\n  listen: 0.0.0.0:0\n  token: s3cret-admin-token-01\n");

    assertThat(get(port, "/health").statusCode()).isEqualTo(200);
    for (String path : List.of("/jobs", "/metrics")) {
      assertUnauthorized(get(port, path));
      assertUnauthorized(get(port, path, "Bearer wrong"));
      assertThat(get(port, path, "Bearer s3cret-admin-token-01").statusCode())
          .as(path)
          .isEqualTo(200);
    }
    assertUnauthorized(post(port, "/jobs/daily/trigger", null));
    assertThat(post(port, "/jobs/daily/trigger", "Bearer s3cret-admin-token-01").statusCode())
        .isEqualTo(200);
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

  @Test
  void nodesListsThisDaemonAndAnotherReplicaWithADifferentJobSetIsDrift() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    Poll.until("this node is listed", LIMIT, () -> body(port, "/nodes").contains("admin-node"));
    String own = body(port, "/nodes");
    assertThat(own)
        .contains("\"node\" : \"admin-node\"")
        .contains("\"state\" : \"live\"")
        .contains("\"job_digest\" : \"hmac:")
        .contains("\"drift\" : false");
    assertThat(body(port, "/metrics")).contains("leasehold_config_drift 0.0");

    // two more replicas with a job set of their own: they are the majority, this node differs
    dev.leasehold.core.lease.NodeRecords other = store.leases.client();
    java.time.Instant now = java.time.Instant.now();
    for (String id : List.of("other-1", "other-2")) {
      other.publishNode(
          new dev.leasehold.core.lease.NodeRecord(id, "0.0.1", now, now, "sha256:other", List.of()),
          Duration.ofMinutes(5));
    }
    Poll.until(
        "the drift metric names this node",
        LIMIT,
        () ->
            body(port, "/metrics")
                .contains("leasehold_config_drift_replica{node=\"admin-node\"} 1.0"));
    assertThat(body(port, "/metrics")).contains("leasehold_config_drift 1.0");
    assertThat(body(port, "/nodes")).contains("\"drift\" : true");
    assertThat(body(port, "/api/status"))
        .contains("\"replicas\"")
        .contains("(differing: admin-node)");
  }

  @Test
  void thePageNamesAChainStepsUpstreamInPlaceOfANextFiring() throws Exception {
    int port =
        start(
            "admin:\n  listen: 127.0.0.1:0\n",
            "  - name: report\n    after: daily\n    command: [\"true\"]\n");
    String page = body(port, "/api/status");
    assertThat(page).contains("\"name\" : \"report\"", "\"after\" : \"daily\"");
    assertThat(page.substring(page.indexOf("\"name\" : \"report\"")))
        .as("no upstream firing is waiting for its step")
        .contains("\"waiting\" : [ ]");
    assertThat(page.substring(page.indexOf("\"name\" : \"tick\""))).contains("\"after\" : null");
  }

  @Test
  void oneJobComesWithItsStateAndLastRuns() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    Poll.until("tick has run", LIMIT, () -> body(port, "/jobs/tick").contains("\"outcome\""));
    String tick = body(port, "/jobs/tick");
    assertThat(tick)
        .contains("\"name\" : \"tick\"")
        .contains("\"schedule\"")
        .contains("\"paused\" : null")
        .contains("\"state\" : \"")
        .contains("\"last_runs\" : [")
        .contains("\"outcome\" : \"succeeded\"");
    assertThat(status(port, "/jobs/no-such-job")).isEqualTo(404);
    assertThat(status(port, "/jobs/bad%20name")).isEqualTo(400);
  }

  private static int status(int port, String path) {
    try {
      return get(port, path).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private static String body(int port, String path) {
    try {
      return get(port, path).body();
    } catch (Exception e) {
      return "";
    }
  }

  /** A missing or wrong token: 401 with a Bearer challenge, on every route that needs one. */
  private static void assertUnauthorized(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.uri().toString()).isEqualTo(401);
    assertThat(response.headers().firstValue("WWW-Authenticate"))
        .as(response.uri().toString())
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer "));
  }
}
