package dev.leasehold.app.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real headless Chromium driven through chromedriver's W3C WebDriver protocol (plain HTTP and
 * JSON, so no WebDriver library and no driver download). Needs Debian's {@code chromium} and {@code
 * chromium-driver} ({@code .ci/services.sh} installs them); under {@code CI=true} a missing browser
 * fails the test, elsewhere it is skipped.
 */
public final class Browser implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> CHROMIUM =
      List.of("/usr/bin/chromium", "/usr/bin/chromium-browser");
  private static final List<String> DRIVER =
      List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

  private final Process driver;
  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;

  private Browser(Process driver, String base, String session) {
    this.driver = driver;
    this.base = base + "/session/" + session;
  }

  /** Starts chromedriver and one headless browser session. */
  public static Browser start() throws Exception {
    String chromium = first(CHROMIUM);
    String chromedriver = first(DRIVER);
    if (chromium == null || chromedriver == null) {
      String message = "headless Chromium is not installed; run: bash .ci/services.sh";
      if (ServerAvailability.inCi()) {
        org.junit.jupiter.api.Assertions.fail(message + " (CI=true: a missing browser fails)");
      }
      org.junit.jupiter.api.Assumptions.abort(message);
    }
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Process driver =
        new ProcessBuilder(chromedriver, "--port=" + port)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String base = "http://127.0.0.1:" + port;
    HttpClient http = HttpClient.newHttpClient();
    Poll.until(
        "chromedriver listens",
        Duration.ofSeconds(30),
        () -> ServerAvailability.listening("127.0.0.1", port));
    ObjectNode body = JSON.createObjectNode();
    ObjectNode options =
        body.putObject("capabilities").putObject("alwaysMatch").putObject("goog:chromeOptions");
    options.put("binary", chromium);
    options
        .putArray("args")
        .add("--headless=new")
        .add("--no-sandbox")
        .add("--disable-gpu")
        .add("--disable-dev-shm-usage")
        .add("--window-size=1400,1100");
    JsonNode answer =
        send(http, HttpRequest.newBuilder(URI.create(base + "/session")), "POST", body);
    String session = answer.path("value").path("sessionId").asText();
    if (session.isEmpty()) {
      driver.destroyForcibly();
      throw new IllegalStateException("chromedriver gave no session: " + answer);
    }
    return new Browser(driver, base, session);
  }

  private static String first(List<String> candidates) {
    return candidates.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
  }

  public void open(String url) throws Exception {
    call("POST", "/url", JSON.createObjectNode().put("url", url));
  }

  /** Runs {@code script} in the page (a function body; {@code return} gives the result). */
  public JsonNode script(String script) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("script", script);
    body.putArray("args");
    return call("POST", "/execute/sync", body).path("value");
  }

  /** The visible text of the first element matching {@code css}, or null when there is none. */
  public String text(String css) throws Exception {
    JsonNode value =
        script(
            "var e = document.querySelector("
                + JSON.writeValueAsString(css)
                + "); return e ? e.innerText : null;");
    return value.isNull() ? null : value.asText();
  }

  /** Clicks the first element matching {@code css} like a user would (WebDriver element click). */
  public void click(String css) throws Exception {
    ObjectNode find = JSON.createObjectNode().put("using", "css selector").put("value", css);
    JsonNode element = call("POST", "/element", find).path("value");
    String id = element.elements().next().asText();
    call("POST", "/element/" + id + "/click", JSON.createObjectNode());
  }

  public void screenshot(Path file) throws Exception {
    String png = call("GET", "/screenshot", null).path("value").asText();
    Files.createDirectories(file.getParent());
    Files.write(file, Base64.getDecoder().decode(png));
  }

  private JsonNode call(String method, String path, JsonNode body) throws Exception {
    JsonNode answer = send(http, HttpRequest.newBuilder(URI.create(base + path)), method, body);
    if (answer.path("value").has("error")) {
      throw new IllegalStateException("WebDriver " + path + ": " + answer.path("value"));
    }
    return answer;
  }

  private static JsonNode send(
      HttpClient http, HttpRequest.Builder request, String method, JsonNode body)
      throws IOException, InterruptedException {
    HttpRequest.BodyPublisher publisher =
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
    request.method(method, publisher).header("Content-Type", "application/json");
    request.timeout(Duration.ofSeconds(60));
    return JSON.readTree(http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body());
  }

  @Override
  public void close() throws Exception {
    try {
      http.send(
          HttpRequest.newBuilder(URI.create(base)).DELETE().timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.discarding());
    } finally {
      driver.destroy();
      if (!driver.waitFor(10, TimeUnit.SECONDS)) {
        driver.destroyForcibly();
      }
    }
  }
}
