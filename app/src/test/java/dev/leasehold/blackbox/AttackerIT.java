package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.leasehold.app.testing.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator surfaces tried as an attacker on the same host or behind a job's HTTP target would,
 * against the built jar: one daemon (embedded H2) with an admin token from a file, a read-only
 * token and a notifier credential from its environment, and jobs that print escape sequences, dump
 * their environment and call targets that redirect. Every attacker check that needs a daemon runs
 * against this one process.
 */
class AttackerIT {
  private static final String ADMIN = "admin-token-" + "a1b2c3d4e5f60718";
  private static final String READ = "read-token-" + "0f1e2d3c4b5a6978";
  private static final String PUSH = "push-token-" + "9a8b7c6d5e4f3a2b";
  private static final String ESC = "\u001b";
  private static final String BEL = "\u0007";
  private static final String FORGED = "2026-12-07T00:00:00.000Z INFO  [main] forged: all is well";

  @RegisterExtension final BlackBox box = new BlackBox();

  private final HttpClient client = HttpClient.newHttpClient();
  private final Map<String, AtomicInteger> targetHits = new ConcurrentHashMap<>();

  @Test
  void theShippedTokensAreRefusedAndTheComposeExampleListensOnLoopback() throws Exception {
    Path dir = box.dir();
    Path examples = Path.of("..", "examples").toAbsolutePath().normalize();
    String compose = Files.readString(examples.resolve("compose/compose.yaml"));
    assertThat(compose).contains("\"127.0.0.1:8077:8077\"").doesNotContain("- \"8077:8077\"");
    assertThat(examples.resolve("compose/secrets/admin-token.txt")).doesNotExist();
    String kubernetes = Files.readString(examples.resolve("kubernetes/leasehold.yaml"));
    assertThat(kubernetes).doesNotContain("stringData").doesNotContain("change-me");

    for (String token :
        List.of("change-me-to-a-long-random-token", "please-change-me-0123456789")) {
      Path config = dir.resolve("shipped.yaml");
      Files.writeString(
          config,
          "admin:\n  token: "
              + token
              + "\njobs:\n  - name: a\n    every: 1h\n    command: [\"true\"]\n");
      Cli.Result validate = Cli.result(dir, "validate", "--config", config.toString());
      assertThat(validate.code()).as(token + ": " + validate.err()).isEqualTo(2);
      assertThat(validate.err().lines()).singleElement().asString().contains("admin.token");
      Path file = dir.resolve("token.txt");
      Files.writeString(file, token + "\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      Files.writeString(
          config,
          "admin:\n  token-file: "
              + file
              + "\njobs:\n  - name: a\n    every: 1h\n    command: [\"true\"]\n");
      validate = Cli.result(dir, "validate", "--config", config.toString());
      assertThat(validate.code()).as(token + " in a file: " + validate.err()).isEqualTo(2);
      assertThat(validate.err().lines()).singleElement().asString().contains("admin.token-file");
    }
  }

  @Test
  void aLocalAttackerCannotReadOutputLockOutTheOperatorOrForgeWhatTheOperatorSees()
      throws Exception {
    Path dir = box.dir();
    HttpServer target = target();
    box.closeAfter(() -> target.stop(0));
    int targetPort = target.getAddress().getPort();
    int port = freePort();
    Path tokenFile = dir.resolve("admin-token");
    Files.writeString(tokenFile, ADMIN + "\n");
    Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    String at = "http://127.0.0.1:" + targetPort;
    String yaml =
        "node: attacked\n"
            + "shutdown-grace: 5s\n"
            + "store:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("data/leasehold")
            + "\n"
            + "admin:\n  listen: 127.0.0.1:"
            + port
            + "\n  token-file: "
            + tokenFile
            + "\n  read-token: ${LH_READ_TOKEN}\n"
            + "jobs:\n"
            + "  - name: env-dump\n    every: 1h\n"
            + "    command: [sh, -c, 'env > "
            + dir.resolve("job-env.txt")
            + "; printf \"\\033]52;c;SGVsbG8=\\007 done\\n\"']\n"
            + "    notify:\n      command: [sh, -c, 'env > "
            + dir.resolve("notify-env.txt")
            + "']\n      on: [succeeded, recovered]\n"
            + "  - name: explicit\n    every: 1h\n"
            + "    command: [sh, -c, 'echo \"$PUSH_TOKEN\" > "
            + dir.resolve("explicit.txt")
            + "']\n    env: {PUSH_TOKEN: \"${PUSH_TOKEN}\"}\n"
            + "  - name: push\n    every: 1h\n"
            + "    http: {url: \""
            + at
            + "/final\", headers: {Authorization: \"Bearer ${PUSH_TOKEN}\"}}\n"
            + "  - name: hop\n    every: 1h\n    http: {url: \""
            + at
            + "/hop\"}\n"
            + "  - name: same\n    every: 1h\n    http: {url: \""
            + at
            + "/same\"}\n"
            + "  - name: osc\n    every: 1h\n    http: {url: \""
            + at
            + "/osc\"}\n";
    Path config = dir.resolve("attacked.yaml");
    Files.writeString(config, yaml.replace("/hop", "/hop?to=" + port));
    Map<String, String> env = new HashMap<>();
    env.put("LH_READ_TOKEN", READ);
    env.put("PUSH_TOKEN", PUSH);
    env.put("LEASEHOLD_ADMIN_TOKEN", ADMIN); // what the image's entry point used to export
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(BlackBox.jvmOptions());
    command.addAll(
        List.of(
            "-Xmx128m", "-jar", BlackBox.jar().toString(), "run", "--config", config.toString()));
    Proc daemon = box.start("attacked", command, env);
    Poll.until(
        "the daemon to start",
        Duration.ofSeconds(90),
        () -> {
          if (!daemon.isAlive()) {
            throw new AssertionError("exited:\n" + daemon.tail(40));
          }
          return daemon.logContains("] started: ");
        });
    String base = "http://127.0.0.1:" + port;

    // run output needs a token on loopback too; a read token reads and cannot change anything
    assertThat(get(base + "/history?limit=1000", null).statusCode()).isEqualTo(401);
    assertThat(get(base + "/jobs/env-dump", null).statusCode()).isEqualTo(401);
    assertThat(get(base + "/history", READ).statusCode()).isEqualTo(200);
    assertThat(get(base + "/jobs/env-dump", READ).statusCode()).isEqualTo(200);
    assertThat(get(base + "/metrics", READ).statusCode()).isEqualTo(200);
    assertThat(post(base + "/jobs/env-dump/pause", READ).statusCode()).isEqualTo(403);
    assertThat(post(base + "/jobs/env-dump/trigger", READ).statusCode()).isEqualTo(403);
    assertThat(post(base + "/reload", READ).statusCode()).isEqualTo(403);
    assertThat(get(base + "/history", ADMIN).statusCode()).isEqualTo(200);

    // the jobs run (trigger answers when the run ended)
    for (String job : List.of("env-dump", "explicit", "push", "hop", "same", "osc")) {
      HttpResponse<String> run = post(base + "/jobs/" + job + "/trigger", ADMIN);
      assertThat(run.statusCode()).as(job + ": " + run.body()).isEqualTo(200);
    }
    String history = get(base + "/history?limit=100", ADMIN).body();

    // neither a job nor a notifier sees a secret the file uses; a job's env: may pass one
    String jobEnv = Files.readString(dir.resolve("job-env.txt"));
    assertThat(jobEnv).contains("LEASEHOLD_JOB=env-dump");
    assertThat(jobEnv).doesNotContain(ADMIN).doesNotContain(READ).doesNotContain(PUSH);
    Path notifyEnv = dir.resolve("notify-env.txt");
    Poll.until("the notifier ran", Duration.ofSeconds(60), () -> notifyEnv.toFile().length() > 0);
    assertThat(Files.readString(notifyEnv))
        .contains("LEASEHOLD_EVENT")
        .doesNotContain(ADMIN)
        .doesNotContain(READ)
        .doesNotContain(PUSH);
    assertThat(Files.readString(dir.resolve("explicit.txt")).strip()).isEqualTo(PUSH);

    // a redirect to another origin (the daemon's own admin endpoint) is not followed
    assertThat(targetHits.get("/hop").get()).isEqualTo(1);
    assertThat(history)
        .contains("redirect to another origin (http://127.0.0.1:" + port + "), not followed")
        .contains("same-origin-final-body");

    // a forged log line in a pause reason, an OSC 52 in output and in a 500 answer
    HttpResponse<String> paused =
        post(
            base
                + "/jobs/osc/pause?reason="
                + URLEncoder.encode("ok\n" + FORGED + "\u001b[2J", StandardCharsets.UTF_8),
            ADMIN);
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(paused.body()).as("JSON keeps the exact text").contains("\\n" + FORGED);
    assertThat(history).as("JSON keeps the exact text").contains("\\u001B]52;c;SGVsbG8=");
    for (String[] args :
        List.of(
            new String[] {"history", "--config", config.toString()},
            new String[] {"history", "--output", "--config", config.toString()},
            new String[] {"status", "--config", config.toString()})) {
      Cli.Result shown = Cli.result(dir, env, args);
      assertThat(shown.code()).as(List.of(args) + ": " + shown.err()).isZero();
      assertThat(shown.out()).as(List.of(args).toString()).doesNotContain(ESC).doesNotContain(BEL);
      assertThat(shown.out().lines()).noneMatch(line -> line.startsWith(FORGED));
    }
    String output =
        Cli.result(dir, env, "history", "--output", "--config", config.toString()).out();
    assertThat(output).contains("\\x1b]52;c;SGVsbG8=\\x07");
    assertThat(Cli.result(dir, env, "status", "--config", config.toString()).out())
        .contains("ok\\n" + FORGED + "\\x1b[2J");
    Poll.until("the pause is logged", Duration.ofSeconds(10), () -> daemon.logContains("forged"));
    String log = Files.readString(daemon.log());
    assertThat(log).doesNotContain(ESC).doesNotContain(BEL);
    assertThat(log.lines()).noneMatch(line -> line.startsWith(FORGED));

    // `status` trusts only a daemon that proves it holds the file's token: a program on the
    // port (here a proxy that copies the daemon's identity header) is not believed
    HttpServer fake = fakeStatus(port);
    box.closeAfter(() -> fake.stop(0));
    Path fakeConfig = dir.resolve("fake.yaml");
    Files.writeString(
        fakeConfig,
        Files.readString(config)
            .replace("127.0.0.1:" + port, "127.0.0.1:" + fake.getAddress().getPort()));
    Cli.Result faked = Cli.result(dir, env, "status", "--config", fakeConfig.toString());
    assertThat(faked.code()).as(faked.err()).isZero();
    assertThat(faked.out()).doesNotContain("FAKE").contains("env-dump");
    assertThat(targetHits.get("fake-status").get()).isPositive();

    // 120 wrong tokens from ten addresses: they are refused (429), the right token is not
    for (int i = 0; i < 120; i++) {
      raw("127.0.0." + (2 + i % 10), port, "wrong-token-" + i);
    }
    assertThat(raw("127.0.0.2", port, "wrong-token-x")).isEqualTo(429);
    assertThat(raw("127.0.0.1", port, ADMIN)).isEqualTo(200);
    assertThat(raw("127.0.0.20", port, READ)).isEqualTo(200);
    // requests without Authorization are not counted
    for (int i = 0; i < 30; i++) {
      assertThat(raw("127.0.0.30", port, null)).isEqualTo(401);
    }
    assertThat(raw("127.0.0.30", port, ADMIN)).isEqualTo(200);
  }

  /** The job's HTTP target: redirects, an escape sequence in a 500, a final answer. */
  private HttpServer target() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          targetHits.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
          byte[] body = new byte[0];
          switch (path) {
            case "/hop" -> {
              String to = exchange.getRequestURI().getQuery().substring("to=".length());
              exchange
                  .getResponseHeaders()
                  .add("Location", "http://127.0.0.1:" + to + "/history?limit=1000");
              exchange.sendResponseHeaders(302, -1);
            }
            case "/same" -> {
              exchange.getResponseHeaders().add("Location", "/final");
              exchange.sendResponseHeaders(302, -1);
            }
            case "/osc" -> {
              body = (ESC + "]52;c;SGVsbG8=" + BEL + " oops").getBytes(StandardCharsets.UTF_8);
              exchange.sendResponseHeaders(500, body.length);
            }
            default -> {
              body = "same-origin-final-body".getBytes(StandardCharsets.UTF_8);
              exchange.sendResponseHeaders(200, body.length);
            }
          }
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }

  /** A program on another port that answers /status with the real daemon's identity, faked. */
  private HttpServer fakeStatus(int daemonPort) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/status",
        exchange -> {
          targetHits.computeIfAbsent("fake-status", p -> new AtomicInteger()).incrementAndGet();
          try {
            HttpResponse<String> real = get("http://127.0.0.1:" + daemonPort + "/status", null);
            real.headers()
                .firstValue("Leasehold-Status-Of")
                .ifPresent(v -> exchange.getResponseHeaders().add("Leasehold-Status-Of", v));
          } catch (Exception e) {
            // answer without the header
          }
          byte[] body = "FAKE status: nothing is paused\n".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }

  private HttpResponse<String> get(String url, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String url, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** {@code GET /history} from the loopback address {@code from}; the answer's status code. */
  private static int raw(String from, int port, String token) throws IOException {
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      socket.setSoTimeout(10_000);
      String request =
          "GET /history?limit=1 HTTP/1.1\r\nHost: 127.0.0.1:"
              + port
              + "\r\n"
              + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
              + "Connection: close\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      List<Byte> line = new ArrayList<>();
      for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
        line.add((byte) b);
      }
      byte[] bytes = new byte[line.size()];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = line.get(i);
      }
      String status = new String(bytes, StandardCharsets.US_ASCII);
      return Integer.parseInt(status.split(" ")[1]);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
