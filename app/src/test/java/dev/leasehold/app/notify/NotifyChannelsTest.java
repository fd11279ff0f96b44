package dev.leasehold.app.notify;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.config.ConfigLoader;
import dev.leasehold.app.config.NotifyChannel;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The push and mail channels against local receivers: a JDK HTTP server standing in for ntfy, the
 * Telegram Bot API and a templated web hook, and a small SMTP listener in the test.
 */
class NotifyChannelsTest {
  private static final Duration LIMIT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant FIRING = Instant.parse("2026-12-01T07:00:00Z");
  private static final String BOT_TOKEN = "123456:TgB0tT0kenSecret";

  /** One request a receiver got. */
  record Request(String path, Map<String, List<String>> headers, String body) {
    String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> e.getValue().get(0))
          .findFirst()
          .orElse(null);
    }
  }

  /** One mail the SMTP listener got. */
  record Mail(String from, List<String> to, String data) {}

  @TempDir Path dir;
  private HttpServer http;
  private ServerSocket smtp;
  private final Queue<Request> requests = new ConcurrentLinkedQueue<>();
  private final Queue<Mail> mails = new ConcurrentLinkedQueue<>();
  private final AtomicInteger telegramFailures = new AtomicInteger();
  private final Logger notifierLog = (Logger) LoggerFactory.getLogger(Notifier.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void startReceivers() throws IOException {
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          String path = exchange.getRequestURI().getPath();
          int status = 200;
          if (path.startsWith("/tg/") && telegramFailures.getAndDecrement() > 0) {
            status = 502;
          } else {
            requests.add(new Request(path, Map.copyOf(exchange.getRequestHeaders()), body));
          }
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    http.start();
    smtp = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
    Thread listener = new Thread(this::serveSmtp, "test-smtp");
    listener.setDaemon(true);
    listener.start();
    logged.start();
    notifierLog.addAppender(logged);
  }

  @AfterEach
  void stop() throws IOException {
    notifierLog.detachAppender(logged);
    http.stop(0);
    smtp.close();
  }

  /** A minimal SMTP server: no TLS, no login, every message accepted. */
  private void serveSmtp() {
    while (!smtp.isClosed()) {
      try (Socket s = smtp.accept()) {
        var in =
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        OutputStream out = s.getOutputStream();
        say(out, "220 test ESMTP");
        String from = null;
        List<String> to = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null) {
          String upper = line.toUpperCase();
          if (upper.startsWith("EHLO")) {
            say(out, "250-test\r\n250 8BITMIME");
          } else if (upper.startsWith("MAIL FROM:")) {
            from = line.substring(10);
            say(out, "250 ok");
          } else if (upper.startsWith("RCPT TO:")) {
            to.add(line.substring(8));
            say(out, "250 ok");
          } else if (upper.equals("DATA")) {
            say(out, "354 go on");
            StringBuilder data = new StringBuilder();
            while (!(line = in.readLine()).equals(".")) {
              data.append(line).append('\n');
            }
            mails.add(new Mail(from, List.copyOf(to), data.toString()));
            say(out, "250 queued");
          } else if (upper.equals("QUIT")) {
            say(out, "221 bye");
            break;
          } else {
            say(out, "502 not here");
          }
        }
      } catch (IOException e) {
        if (!smtp.isClosed()) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private static void say(OutputStream out, String reply) throws IOException {
    out.write((reply + "\r\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private String base() {
    return "http://127.0.0.1:" + http.getAddress().getPort();
  }

  private NotifyConfig load(String notify) throws Exception {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(
        file,
        "store: {type: h2, url: \"jdbc:h2:file:"
            + dir.resolve("db")
            + "\"}\nnotify:\n"
            + notify
            + "jobs:\n  - name: checkin\n    cron: \"0 8 * * *\"\n    zone: Europe/Berlin\n"
            + "    command: [\"true\"]\n");
    return new ConfigLoader(Map.of(), "host-1").load(file).job("checkin").orElseThrow().notifier();
  }

  private static ExecutionRecord failed(String output) {
    return new ExecutionRecord(
        "checkin",
        FIRING,
        "gateway-1",
        12,
        TriggerKind.SCHEDULED,
        FIRING.plusMillis(4),
        FIRING.plusMillis(1208),
        Outcome.FAILED,
        3,
        "exit code 3",
        output);
  }

  private Notifier notifier(NotifyConfig config) {
    return new Notifier(
        Map.of("checkin", config),
        new InMemoryExecutionLog(),
        HttpClient.newHttpClient(),
        List.of(Duration.ofMillis(50)),
        java.time.Clock.systemUTC());
  }

  private List<Request> to(String pathPrefix) {
    return requests.stream().filter(r -> r.path().startsWith(pathPrefix)).toList();
  }

  @Test
  void aFailedFiringReachesEveryChannelOnceRenderedAndTheBotTokenIsInNoLog() throws Exception {
    NotifyConfig config =
        load(
            "  ntfy: {url: \""
                + base()
                + "/family\", priority: high, tags: [warning, pill], token: NtfyT0kenSecret}\n"
                + "  telegram: {bot-token: \""
                + BOT_TOKEN
                + "\", chat-id: \"-1001\", api-url: \""
                + base()
                + "/tg\"}\n"
                + "  email: {smtp: \"smtp://127.0.0.1:"
                + smtp.getLocalPort()
                + "\", starttls: false, from: \"leasehold@home.example\","
                + " to: [\"mom@home.example\", \"dad@home.example\"]}\n"
                + "  http:\n    url: \""
                + base()
                + "/hook\"\n    body: '{\"text\": \"{{job}} {{event}}: {{output}}\", \"code\":"
                + " {{exit_code}}}'\n"
                + "  command: [\"sh\", \"-c\", \"cat > "
                + dir.resolve("event.json")
                + "\"]\n"
                + "  message: \"{{job}} {{event}} on {{node}} (attempt {{attempt}}, {{duration}}):"
                + " {{detail}}\\n{{output}}\"\n"
                + "  on: [failed]\n");
    assertThat(config.channels()).hasSize(5);
    telegramFailures.set(1); // the Bot API fails once: the error is logged without the token
    Notifier n = notifier(config);
    ExecutionRecord r =
        failed("pushing \"check-in\" to 3 phones\n[stderr] boom: push answered 503");

    n.event(r).ifPresent(e -> n.deliver(e, r));

    String message =
        "checkin failed on gateway-1 (attempt 1, 1204ms): exit code 3\n"
            + "pushing \"check-in\" to 3 phones\n[stderr] boom: push answered 503";
    Poll.until("every channel got it", LIMIT, () -> requests.size() == 3 && mails.size() == 1);

    Request ntfy = to("/family").get(0);
    assertThat(to("/family")).hasSize(1);
    assertThat(ntfy.body()).isEqualTo(message);
    assertThat(ntfy.header("Title")).isEqualTo("checkin failed");
    assertThat(ntfy.header("Priority")).isEqualTo("high");
    assertThat(ntfy.header("Tags")).isEqualTo("warning,pill");
    assertThat(ntfy.header("Authorization")).isEqualTo("Bearer NtfyT0kenSecret");

    assertThat(to("/tg/")).hasSize(1);
    Request telegram = to("/tg/").get(0);
    assertThat(telegram.path()).isEqualTo("/tg/bot" + BOT_TOKEN + "/sendMessage");
    JsonNode sent = JSON.readTree(telegram.body());
    assertThat(sent.get("chat_id").asText()).isEqualTo("-1001");
    assertThat(sent.get("text").asText()).isEqualTo(message);

    assertThat(to("/hook")).hasSize(1);
    JsonNode hook = JSON.readTree(to("/hook").get(0).body());
    assertThat(hook.get("text").asText())
        .as("values JSON-escaped into the body")
        .isEqualTo("checkin failed: " + r.output());
    assertThat(hook.get("code").asInt()).isEqualTo(3);

    Mail mail = mails.peek();
    assertThat(mail.from()).isEqualTo("<leasehold@home.example>");
    assertThat(mail.to()).containsExactly("<mom@home.example>", "<dad@home.example>");
    assertThat(mail.data()).contains("Subject: Leasehold: checkin failed\n");
    String body = mail.data().substring(mail.data().indexOf("\n\n") + 2).replace("\n", "");
    assertThat(new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8))
        .isEqualTo(message);

    Poll.until("the command got the event", LIMIT, () -> Files.exists(dir.resolve("event.json")));
    assertThat(logged.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(l -> assertThat(l).contains("to=telegram", "answered 502"))
        .noneSatisfy(l -> assertThat(l).contains("TgB0tT0kenSecret"))
        .noneSatisfy(l -> assertThat(l).contains("NtfyT0kenSecret"));
    assertThat(config.toString()).doesNotContain("TgB0tT0kenSecret", "NtfyT0kenSecret");
  }

  @Test
  void theDefaultMessageNamesJobEventFiringInTheJobsZoneNodeAndLastOutputLine() {
    NotifyConfig config =
        new NotifyConfig(
            List.of(new NotifyChannel.Ntfy(URI.create(base() + "/family"), null, List.of(), null)),
            Set.of("failed"),
            null,
            ZoneId.of("Europe/Berlin"));
    Notifier n = notifier(config);
    ExecutionRecord r = failed("filler\n[stderr] boom: disk full\n");

    n.event(r).ifPresent(e -> n.deliver(e, r));

    Poll.until("ntfy got it", LIMIT, () -> requests.size() == 1);
    assertThat(requests.peek().body())
        .isEqualTo(
            "checkin failed: exit code 3\nfiring 2026-12-01 08:00:00 CET on gateway-1\n"
                + "[stderr] boom: disk full");
    assertThat(requests.peek().header("Priority")).as("the server's default").isNull();
  }

  @Test
  void aRunThatStartsIsAnnouncedOnceWhileItRuns() throws Exception {
    NotifyConfig config =
        load(
            "  ntfy: {url: \""
                + base()
                + "/family\"}\n  http: {url: \""
                + base()
                + "/hook\"}\n  on: [started]\n");
    Notifier n = notifier(config);
    JobRunner job =
        StartNotices.wrap(
            context -> {
              Poll.until("the start is announced", LIMIT, () -> requests.size() == 2);
              return JobResult.exit(0);
            },
            n);

    JobResult result =
        job.run(new JobContext("checkin", FIRING, 12, "gateway-1", 2, TriggerKind.SCHEDULED, null));

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(to("/family")).hasSize(1);
    assertThat(to("/family").get(0).body())
        .isEqualTo("checkin started\nfiring 2026-12-01 08:00:00 CET on gateway-1");
    JsonNode event = JSON.readTree(to("/hook").get(0).body());
    assertThat(event.get("event").asText()).isEqualTo("started");
    assertThat(event.get("outcome").asText()).isEqualTo("running");
    assertThat(event.get("attempt").asInt()).isEqualTo(2);
    assertThat(event.get("id").asText()).isEqualTo("checkin@2026-12-01T07:00:00.000Z#12:started");
    assertThat(event.has("exit_code")).isFalse();
    ExecutionRecord finished = failed("boom");
    assertThat(n.event(finished)).as("on: [started] only").isEmpty();
  }

  @Test
  void mailIsNotSentInClearTextWhenTheServerOffersNoStarttls() throws Exception {
    NotifyConfig config =
        load(
            "  email: {smtp: \"smtp://127.0.0.1:"
                + smtp.getLocalPort()
                + "\", from: \"leasehold@home.example\", to: [\"mom@home.example\"]}\n");
    Notifier n = notifier(config);
    ExecutionRecord r = failed("boom");

    n.event(r).ifPresent(e -> n.deliver(e, r));

    assertThat(mails).as("starttls defaults to true: nothing sent in clear text").isEmpty();
    assertThat(logged.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("notification lost job=checkin")
                    .contains("to=email", "offers no STARTTLS"));
  }
}
