package dev.leasehold.app.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotifierTest {
  private static final Duration LIMIT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

  @TempDir Path dir;
  private HttpServer receiver;
  private final Queue<String> received = new ConcurrentLinkedQueue<>();
  private final Map<String, List<String>> headers = new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private Notifier notifier;

  @BeforeEach
  void startReceiver() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v));
          int status = failuresLeft.getAndDecrement() > 0 ? 503 : 204;
          if (status == 204) {
            received.add(body);
          }
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    receiver.start();
  }

  @AfterEach
  void stop() {
    receiver.stop(0);
  }

  /** As the scheduler's desk does with a firing's last row: the event it makes, delivered. */
  private static void lastRow(Notifier n, ExecutionRecord r) {
    n.event(r).ifPresent(e -> n.deliver(e, r));
  }

  private NotifyConfig http(String... on) {
    URI url = URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/alerts");
    return new NotifyConfig(
        new JobAction.Http("POST", url, Map.of(), null, Duration.ofSeconds(5)),
        on.length == 0 ? NotifyConfig.DEFAULT_ON : java.util.Set.of(on));
  }

  private Notifier notifier(NotifyConfig config) {
    notifier =
        new Notifier(
            Map.of("checkin", config),
            history,
            HttpClient.newHttpClient(),
            List.of(Duration.ofMillis(50)),
            java.time.Clock.systemUTC());
    return notifier;
  }

  /** A row as the history writer hears of it: written first, then the listener. */
  private void finished(Notifier n, int second, Outcome outcome, String output) {
    Instant at = T0.plusSeconds(second);
    ExecutionRecord r =
        new ExecutionRecord(
            "checkin",
            at,
            "gateway-1",
            second,
            TriggerKind.SCHEDULED,
            at.plusMillis(5),
            at.plusMillis(1205),
            outcome,
            outcome == Outcome.SUCCEEDED ? 0 : 3,
            outcome == Outcome.SUCCEEDED ? null : "exit code 3",
            output);
    history.record(r);
    lastRow(n, r);
  }

  @Test
  void aFailedRunSendsOneEventWithItsFieldsScrubbed() throws Exception {
    Redaction.register("PushT0kenSecret");
    Notifier n = notifier(http());
    finished(n, 60, Outcome.FAILED, "pushing\n[stderr] boom, token PushT0kenSecret");

    Poll.until("the event arrives", LIMIT, () -> received.size() == 1);
    JsonNode event = JSON.readTree(received.peek());
    assertThat(event.get("event").asText()).isEqualTo("failed");
    assertThat(event.get("id").asText()).isEqualTo("checkin@2026-12-01T00:01:00.000Z#60");
    assertThat(event.get("job").asText()).isEqualTo("checkin");
    assertThat(event.get("firing").asText()).isEqualTo("2026-12-01T00:01:00.000Z");
    assertThat(event.get("node").asText()).isEqualTo("gateway-1");
    assertThat(event.get("fence").asLong()).isEqualTo(60);
    assertThat(event.get("outcome").asText()).isEqualTo("failed");
    assertThat(event.get("attempt").asInt()).isEqualTo(1);
    assertThat(event.get("duration_ms").asLong()).isEqualTo(1200);
    assertThat(event.get("exit_code").asInt()).isEqualTo(3);
    assertThat(event.get("output").asText()).isEqualTo("pushing\n[stderr] boom, token ***");
    assertThat(received.peek()).doesNotContain("PushT0kenSecret");
  }

  @Test
  void anErrorWrittenAfterABacklogOfStdoutIsTheLastLineOfTheEventsOutput() throws Exception {
    // a real process: 25 KB to stdout, then the error to stderr
    var job =
        new dev.leasehold.app.runner.CommandJobRunner(
            new JobAction.Command(
                List.of(
                    "sh",
                    "-c",
                    "i=0; while [ $i -lt 500 ]; do echo \"filler $i"
                        + " ........................................\"; i=$((i+1)); done;"
                        + " echo 'boom: push service answered 503, attempt 2' >&2; exit 3"),
                Map.of(),
                null,
                Duration.ofSeconds(5)));
    var result =
        job.run(
            new dev.leasehold.core.job.JobContext(
                "checkin", T0, 7, "gateway-1", 1, TriggerKind.SCHEDULED, null));
    Notifier n = notifier(http());
    finished(n, 60, result.outcome(), result.output());

    Poll.until("the event arrives", LIMIT, () -> received.size() == 1);
    assertThat(JSON.readTree(received.peek()).get("output").asText())
        .endsWith("\n[stderr] boom: push service answered 503, attempt 2");
  }

  @Test
  void anEventIsPostedAsPlainHttp11WithoutAnUpgradeOffer() {
    Notifier n = notifier(http());
    finished(n, 60, Outcome.FAILED, "boom");

    Poll.until("the event arrives", LIMIT, () -> received.size() == 1);
    assertThat(received.peek()).contains("\"event\":\"failed\"");
    assertThat(headers).doesNotContainKeys("upgrade", "http2-settings");
    assertThat(headers.getOrDefault("connection", List.of()).toString())
        .doesNotContainIgnoringCase("upgrade");
    assertThat(headers).containsEntry("content-type", List.of("application/json"));
  }

  @Test
  void aContentTypeTheNotifierNamesReplacesJsonAndLeaseholdHeadersStayLeaseholds() {
    URI url = URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/alerts");
    Notifier n =
        notifier(
            new NotifyConfig(
                new JobAction.Http(
                    "POST",
                    url,
                    Map.of(
                        "Content-Type", "application/cloudevents+json",
                        "X-Leasehold-Fence", "1"),
                    null,
                    Duration.ofSeconds(5)),
                NotifyConfig.DEFAULT_ON));
    finished(n, 60, Outcome.FAILED, "boom");

    Poll.until("the event arrives", LIMIT, () -> received.size() == 1);
    assertThat(headers)
        .containsEntry("content-type", List.of("application/cloudevents+json"))
        .containsEntry("x-leasehold-fence", List.of("60"));
  }

  @Test
  void aSuccessSendsRecoveredOnlyAfterAFailureAndMissesAreSent() {
    Notifier n = notifier(http());
    finished(n, 1, Outcome.SUCCEEDED, null);
    finished(n, 2, Outcome.TIMED_OUT, null);
    finished(n, 3, Outcome.SUCCEEDED, null);
    finished(n, 4, Outcome.SUCCEEDED, null);
    finished(n, 5, Outcome.MISSED, null);
    finished(n, 6, Outcome.SKIPPED, null);

    Poll.until("three events", LIMIT, () -> received.size() == 3);
    assertThat(received)
        .extracting(
            body ->
                JSON.readTree(body).get("event").asText()
                    + "@"
                    + JSON.readTree(body).get("fence").asLong())
        .containsExactly("failed@2", "recovered@3", "missed@5");
  }

  /** A run of the firing at {@code second}, attempt {@code attempt}, with fence {@code fence}. */
  private void attempt(
      Notifier n, int second, int attempt, long fence, Outcome outcome, boolean retrying) {
    Instant at = T0.plusSeconds(second);
    ExecutionRecord r =
        new ExecutionRecord(
            "checkin",
            at,
            "gateway-" + attempt,
            fence,
            TriggerKind.SCHEDULED,
            at.plusSeconds(attempt),
            at.plusSeconds(attempt).plusMillis(100),
            outcome,
            outcome == Outcome.SUCCEEDED ? 0 : 3,
            null,
            null,
            attempt);
    history.record(r);
    if (!retrying) {
      lastRow(n, r); // the desk never asks about a row that a retry follows
    }
  }

  @Test
  void aFiringIsNotifiedOnceByItsLastAttemptAndARetriedSuccessIsNoRecovery() {
    Notifier n = notifier(http("failed", "recovered"));
    // firing 60: two failures retried, then a success: nothing (no failure was notified)
    attempt(n, 60, 1, 1, Outcome.FAILED, true);
    attempt(n, 60, 2, 2, Outcome.TIMED_OUT, true);
    attempt(n, 60, 3, 3, Outcome.SUCCEEDED, false);
    // firing 120: fails three times, the last attempt is final: one failure
    attempt(n, 120, 1, 4, Outcome.FAILED, true);
    attempt(n, 120, 2, 5, Outcome.FAILED, true);
    attempt(n, 120, 3, 6, Outcome.FAILED, false);
    // firing 180: a retried failure, then a success: recovered (firing 120 finally failed)
    attempt(n, 180, 1, 7, Outcome.FAILED, true);
    attempt(n, 180, 2, 8, Outcome.SUCCEEDED, false);

    Poll.until("two events", LIMIT, () -> received.size() == 2);
    assertThat(received)
        .extracting(
            body ->
                JSON.readTree(body).get("event").asText()
                    + "@"
                    + JSON.readTree(body).get("fence").asLong()
                    + "#"
                    + JSON.readTree(body).get("attempt").asInt())
        .containsExactly("failed@6#3", "recovered@8#2");
  }

  @Test
  void aFailingNotifierIsTriedThreeTimesThenGivenUp() {
    failuresLeft.set(2);
    Notifier n = notifier(http("failed", "succeeded"));
    for (int i = 1; i <= 20; i++) {
      finished(n, i, Outcome.FAILED, null);
    }
    assertThat(received).as("every event, the first after two refusals").hasSize(20);

    failuresLeft.set(Integer.MAX_VALUE);
    finished(n, 21, Outcome.FAILED, null);
    finished(n, 22, Outcome.SUCCEEDED, null);
    assertThat(received).as("both given up after three attempts").hasSize(20);
  }

  @Test
  void skippedRowsAndJobsWithoutANotifierMakeNoEvent() {
    Notifier n = notifier(http());
    assertThat(n.notifies("checkin")).isTrue();
    assertThat(n.notifies("other")).isFalse();
    ExecutionRecord skipped =
        new ExecutionRecord(
            "checkin",
            T0,
            "gateway-1",
            0,
            TriggerKind.SCHEDULED,
            T0,
            T0,
            Outcome.SKIPPED,
            null,
            "overlap");
    assertThat(n.event(skipped)).isEmpty();
  }

  @Test
  void aReplacedRunMakesNoEvent() {
    Notifier n = notifier(http());
    ExecutionRecord replaced =
        new ExecutionRecord(
            "checkin",
            T0,
            "gateway-1",
            4,
            TriggerKind.SCHEDULED,
            T0,
            T0.plusSeconds(9),
            Outcome.REPLACED,
            143,
            "stopped: replaced");
    assertThat(n.event(replaced)).isEmpty();
  }

  @Test
  void aCommandGetsTheEventOnStdinAndInLeaseholdEvent() throws Exception {
    Path out = dir.resolve("event");
    NotifyConfig command =
        new NotifyConfig(
            new JobAction.Command(
                List.of(
                    "sh",
                    "-c",
                    "cat > \"$1\"; printf '\\n%s' \"$LEASEHOLD_EVENT\" >> \"$1\"",
                    "notify",
                    out.toString()),
                Map.of(),
                null,
                Duration.ofSeconds(1)),
            NotifyConfig.DEFAULT_ON);
    Notifier n = notifier(command);
    finished(n, 7, Outcome.FAILED, "said this");

    List<String> lines = Files.readAllLines(out);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).isEqualTo(lines.get(1));
    assertThat(JSON.readTree(lines.get(0)).get("output").asText()).isEqualTo("said this");
  }
}
