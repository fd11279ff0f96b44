package dev.leasehold.app.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.logging.LogSetup;
import dev.leasehold.app.testing.Browser;
import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.testing.Poll;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Secrets of awkward shapes (quotes, backslashes, {@code @ : %}, parts of two characters) through
 * every surface of a running daemon: the text and the JSON log, the CLI's {@code history} and
 * {@code status} (table and JSON), the status page as the browser shows it, {@code /api/status},
 * {@code /jobs}, {@code /history}, {@code /metrics}, {@code /health}, a trigger's answer, {@code
 * history --output} and the notification the failing job sends. The secrets: the store password
 * (embedded H2), the admin token, and an HTTP job's {@code Authorization} header, which the job's
 * server echoes in its error body, whole and split at {@code @} and {@code :} as a driver's message
 * would, so it reaches the history detail.
 */
class SecretSurfacesTest {
  private static final String STORE_PASSWORD = "Sq\"uo\\te@Hx:%41-store-Pw9";
  private static final String TOKEN = "Tk\"ba\\ck@Jq:Wv%25-admin-tok";
  private static final String HEADER = "Hd\\\"x@Qy:zK%2F-header-Secret";

  private static final List<String> SECRETS = List.of(STORE_PASSWORD, TOKEN, HEADER);
  private static final Pattern SPLIT = Pattern.compile("[/@:#?%&=;]");
  private static final Duration LIMIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private HttpServer echo;
  private final List<String> notifications = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<String> leaks = new ArrayList<>();

  @BeforeEach
  void startEcho() throws Exception {
    echo = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    echo.createContext(
        "/",
        exchange -> {
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          String parts = String.join(" ", auth.split("[@:]"));
          byte[] body = ("denied for " + auth + " (parts: " + parts + ")").getBytes(UTF_8);
          exchange.sendResponseHeaders(500, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    echo.createContext(
        "/notify",
        exchange -> {
          notifications.add(new String(exchange.getRequestBody().readAllBytes(), UTF_8));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    echo.start();
  }

  @AfterEach
  void stopEcho() {
    echo.stop(0);
  }

  private Path config(int adminPort) throws Exception {
    Path file = dir.resolve("surfaces.yaml");
    Files.writeString(
        file,
        "node: surfaces-node\nstore:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("db")
            + "\n  password: '"
            + STORE_PASSWORD
            + "'\nadmin:\n  listen: 127.0.0.1:"
            + adminPort
            + "\n  token: '"
            + TOKEN
            + "'\njobs:\n  - name: echo-job\n    every: 1s\n    http:\n      url: http://127.0.0.1:"
            + echo.getAddress().getPort()
            + "/echo\n      headers:\n        Authorization: 'Bearer "
            + HEADER
            + "'\n    notify:\n      http:\n        url: http://127.0.0.1:"
            + echo.getAddress().getPort()
            + "/notify\n");
    return file;
  }

  @Test
  void noSurfaceShowsASecretWhateverItsShape() throws Exception {
    int port = freePort();
    Path config = config(port);
    CliHarness cli = new CliHarness();

    String textLog =
        runLogged(
            cli,
            config,
            false,
            () -> {
              Poll.until(
                  "the echo job failed with the echoed header in its detail",
                  LIMIT,
                  () -> get(port, "/api/status", null).contains("denied for"));
              for (String path :
                  List.of(
                      "/",
                      "/api/status",
                      "/jobs",
                      "/history?job=echo-job",
                      "/metrics",
                      "/health")) {
                check("GET " + path, get(port, path, null));
              }
              check("a trigger's answer", post(port, "/jobs/echo-job/trigger", "Bearer " + TOKEN));
              // the audit trail: a pause whose reason holds the secrets, a wrong token that holds
              // the token, both recorded, neither value shown
              String reason =
                  java.net.URLEncoder.encode(
                      "pw " + STORE_PASSWORD + " token " + TOKEN + " header " + HEADER,
                      java.nio.charset.StandardCharsets.UTF_8);
              check(
                  "a pause's answer",
                  post(port, "/jobs/echo-job/pause?reason=" + reason, "Bearer " + TOKEN));
              check("a resume's answer", post(port, "/jobs/echo-job/resume", "Bearer " + TOKEN));
              check("a wrong token's answer", get(port, "/audit", "Bearer " + TOKEN + "-and-more"));
              String audit = get(port, "/audit?limit=50", "Bearer " + TOKEN);
              assertThat(audit).startsWith("200 ").contains("\"pause\"").contains("\"trigger\"");
              check("GET /audit", audit);
              check("GET /api/audit", get(port, "/api/audit?limit=50", "Bearer " + TOKEN));
              check("the page in the browser", page(port));
            });
    assertThat(textLog).contains("denied for");
    check("text log", textLog);

    assertThat(notifications).as("the failing job's notification").isNotEmpty();
    assertThat(String.join("\n", notifications)).contains("denied for");
    check("notifications", String.join("\n", notifications));

    String jsonLog = runLogged(cli, config, true, () -> {});
    assertThat(jsonLog).contains("\"level\":\"WARN\"").contains("denied for");
    check("JSON log", jsonLog);

    for (List<String> command :
        List.of(
            List.of("history"),
            List.of("history", "--json"),
            List.of("history", "--job", "echo-job", "--output"),
            List.of("status"),
            List.of("status", "--json"),
            List.of("audit"),
            List.of("audit", "--json"),
            List.of("validate"))) {
      List<String> argv = new ArrayList<>(command);
      argv.addAll(List.of("--config", config.toString()));
      CliHarness.Result result = cli.run(argv.toArray(String[]::new));
      check("CLI " + command, result.out() + result.err());
      if (command.get(0).equals("history")) {
        assertThat(result.out()).contains("denied for");
      }
      if (command.get(0).equals("audit")) {
        assertThat(result.out()).contains("pause").contains("reason: pw ***");
      }
    }
    assertThat(leaks).isEmpty();
  }

  /**
   * What must not appear: each secret as written, URL-encoded and JSON-escaped; each run of its
   * parts between URL delimiters of 4 characters or more anywhere; each part of 2 or 3 characters
   * as a token of its own.
   */
  private void check(String where, String text) {
    for (String secret : SECRETS) {
      List<String> forms =
          new ArrayList<>(
              List.of(
                  secret,
                  URLEncoder.encode(secret, UTF_8),
                  secret.replace("\\", "\\\\").replace("\"", "\\\"")));
      List<String> parts = Arrays.asList(SPLIT.split(secret));
      for (String part : parts) {
        if (part.length() >= 4) {
          forms.add(part);
        } else if (part.length() >= 2
            && Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(part) + "(?![\\p{L}\\p{N}])")
                .matcher(text)
                .find()) {
          leaks.add(where + ": the part '" + part + "' as a token");
        }
      }
      for (String form : forms) {
        if (text.contains(form)) {
          leaks.add(where + ": " + form);
        }
      }
    }
  }

  private String runLogged(CliHarness cli, Path config, boolean json, Runnable whileRunning)
      throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, UTF_8));
    try {
      LogSetup.configure(json, "DEBUG", true);
      CompletableFuture<CliHarness.Result> run =
          CompletableFuture.supplyAsync(() -> cli.run("run", "--config", config.toString()));
      Poll.until(
          "a failed run of the echo job is logged",
          LIMIT,
          () ->
              run.isDone()
                  || captured.toString(UTF_8).contains("outcome=failed")
                  || captured.toString(UTF_8).contains("\"outcome\":\"failed\""));
      whileRunning.run();
      cli.sendShutdown();
      CliHarness.Result result = run.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
      return captured.toString(UTF_8) + result.out() + result.err();
    } finally {
      System.setErr(original);
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      context.reset();
      new ContextInitializer(context).autoConfig();
    }
  }

  private static String page(int port) {
    try (Browser browser = Browser.start()) {
      browser.open("http://127.0.0.1:" + port + "/");
      Poll.until(
          "the page shows the echo job's failure",
          LIMIT,
          () -> {
            try {
              String history = browser.text("#history");
              return history != null && history.contains("denied for");
            } catch (Exception e) {
              return false;
            }
          });
      return browser.text("body")
          + "\n"
          + browser.script("return document.documentElement.outerHTML;").asText();
    } catch (Exception e) {
      throw new AssertionError("the page in the browser: " + e, e);
    }
  }

  private static String get(int port, String path, String authorization) {
    try {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
      if (authorization != null) {
        request.header("Authorization", authorization);
      }
      HttpResponse<String> response =
          HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body();
    } catch (Exception e) {
      return "";
    }
  }

  private static String post(int port, String path, String authorization) {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                      .header("Authorization", authorization)
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return response.body();
    } catch (java.io.IOException | InterruptedException e) {
      throw new AssertionError("POST " + path + ": " + e, e);
    }
  }

  private static int freePort() throws Exception {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
