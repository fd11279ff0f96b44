package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corpus of passwords holding {@code / @ : # % ?}, given in URL user info, in a URL query and as
 * {@code store.password}, for every store type, plus a password that is the whole user info of a
 * Redis URL, query options whose name ends in "password" ({@code sslpassword}, {@code
 * keyStorePassword}, {@code trustStorePassword}) and a password holding quotes and backslashes,
 * with the store down (nothing listens) and up (a real server that refuses the password): {@code
 * validate}, {@code validate --connect}, {@code status}, {@code history} and the log of {@code run}
 * never show the password nor any part of it between those delimiters. With a store that accepts
 * the password (MariaDB), {@code /health}, {@code /metrics} and {@code /jobs} do not show it
 * either.
 */
class SecretsCorpusTest {
  /** Parts of 5+ characters between delimiters, so that a quoted fragment is caught too. */
  private static final String PASSWORD = "Alpha7/Bravo8@Charlie9:Delta0#Echo1%Fox2?Golf3";

  private static final Pattern DELIMITERS = Pattern.compile("[/@:#%?]");

  /**
   * For the forms that take no URL delimiter: user info that is only a password ({@code
   * redis://SECRET@host}) and query options whose name ends in "password".
   */
  private static final String PLAIN = "Kilo4Lima5Mike6";

  /** Quotes and backslashes, which JSON and quoted log fields escape. */
  private static final String QUOTED = "Nov\"em\\ber\\\"Osc\"ar7";

  @TempDir Path dir;

  private final CliHarness cli = new CliHarness();

  private record Store(String type, String form, String yaml) {}

  @Test
  void noCommandShowsThePasswordWithTheStoreDownOrRefusingIt() throws Exception {
    int closed = closedPort();
    List<Store> stores = new ArrayList<>();
    stores.addAll(stores(closed, "down"));
    if (ServerAvailability.inCi() || reachable(3306)) {
      stores.addAll(jdbc("mariadb", "jdbc:mariadb", "root", 3306, "up"));
      stores.addAll(jdbc("mysql", "jdbc:mysql", "root", 3306, "up"));
    }
    if (ServerAvailability.inCi() || reachable(5432)) {
      stores.addAll(jdbc("postgres", "jdbc:postgresql", "postgres", 5432, "up"));
    }
    if (ServerAvailability.inCi() || reachable(6379)) {
      stores.addAll(redis(6379, "up"));
    }
    for (Store store : stores) {
      Path config = write(store.yaml(), "");
      for (List<String> command :
          List.of(
              List.of("validate"),
              List.of("validate", "--connect"),
              List.of("status"),
              List.of("history"))) {
        List<String> argv = new ArrayList<>(command);
        argv.addAll(List.of("--config", config.toString()));
        CliHarness.Result result = cli.run(argv.toArray(String[]::new));
        assertNoSecret(store + " " + command, result.out() + result.err());
      }
    }
  }

  @Test
  void theRunLogShowsNoPasswordWhileTheStoreIsDown() throws Exception {
    int closed = closedPort();
    for (Store store : stores(closed, "down")) {
      // embedded H2 is never down: its daemon starts
      String expected = store.type().equals("h2") ? "started: " : "is not reachable";
      String log = runLog(write(store.yaml(), ""), expected);
      // or the URL was refused as unreadable before anything started (exit 2, the message shown)
      assertThat(log)
          .as(store.toString())
          .containsAnyOf(expected, ": store.url: ", ": store.urls[0]: ");
      assertNoSecret(store + " run log", log);
    }
  }

  @Test
  void adminEndpointsShowNoPasswordOfAStoreThatAcceptsIt() throws Exception {
    ServerAvailability.require(
        "MariaDB on 127.0.0.1:3306", "127.0.0.1", 3306, "bash .ci/services.sh");
    String db = "lh_sec_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    String user = db;
    try (Connection c =
            DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/test", "root", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + db);
      try (PreparedStatement p =
          c.prepareStatement("CREATE USER '" + user + "'@'%' IDENTIFIED BY ?")) {
        p.setString(1, PASSWORD);
        p.execute();
      }
      s.execute("GRANT ALL ON " + db + ".* TO '" + user + "'@'%'");
    }
    try {
      int port = closedPort();
      String yaml =
          "type: mariadb\nurl: jdbc:mariadb://127.0.0.1:3306/"
              + db
              + "\nusername: "
              + user
              + "\npassword: '"
              + PASSWORD
              + "'\n";
      Path config =
          write(yaml, "admin:\n  listen: 127.0.0.1:" + port + "\n  token: tok-" + db + "\n");
      String log =
          runLog(
              config,
              "started: ",
              () -> {
                for (String path : List.of("/health", "/metrics", "/jobs")) {
                  assertNoSecret("GET " + path, get(port, path));
                }
              });
      assertNoSecret("run log with admin", log);
    } finally {
      try (Connection c =
              DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/test", "root", "");
          Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + db);
        s.execute("DROP USER IF EXISTS '" + user + "'@'%'");
      }
    }
  }

  // --- the corpus -----------------------------------------------------------------------------

  private static List<Store> stores(int port, String state) {
    List<Store> out = new ArrayList<>();
    out.add(new Store("h2", "password", "type: h2\nurl: jdbc:h2:mem:sec\npassword: " + quoted()));
    out.add(new Store("h2", "url", "type: h2\nurl: 'jdbc:h2:mem:sec;PASSWORD=" + PASSWORD + "'"));
    out.addAll(jdbc("mariadb", "jdbc:mariadb", "root", port, state));
    out.addAll(jdbc("mysql", "jdbc:mysql", "root", port, state));
    out.addAll(jdbc("postgres", "jdbc:postgresql", "postgres", port, state));
    out.addAll(redis(port, state));
    out.add(
        new Store(
            "mongo",
            "userinfo " + state,
            "type: mongo\nurl: 'mongodb://u:" + PASSWORD + "@127.0.0.1:" + port + "/db'"));
    out.add(
        new Store(
            "redis",
            "password-only userinfo " + state,
            "type: redis\nurl: 'redis://" + PLAIN + "@127.0.0.1:" + port + "/0'"));
    out.add(
        new Store(
            "postgres",
            "sslpassword option " + state,
            "type: postgres\nurl: 'jdbc:postgresql://127.0.0.1:"
                + port
                + "/test?user=postgres&sslpassword="
                + PLAIN
                + "'"));
    out.add(
        new Store(
            "mariadb",
            "key store options " + state,
            "type: mariadb\nurl: 'jdbc:mariadb://127.0.0.1:"
                + port
                + "/test?user=root&keyStorePassword="
                + PLAIN
                + "&trustStorePassword="
                + PLAIN
                + "'"));
    out.add(
        new Store(
            "postgres",
            "quoted password " + state,
            "type: postgres\nurl: jdbc:postgresql://127.0.0.1:"
                + port
                + "/test\nusername: postgres\npassword: '"
                + QUOTED
                + "'"));
    out.add(
        new Store(
            "redis",
            "quoted password " + state,
            "type: redis\nurl: redis://127.0.0.1:" + port + "\npassword: '" + QUOTED + "'"));
    out.add(
        new Store(
            "mongo",
            "password " + state,
            "type: mongo\nurl: mongodb://127.0.0.1:"
                + port
                + "/db\nusername: u\npassword: "
                + quoted()));
    return out;
  }

  private static List<Store> jdbc(String type, String scheme, String user, int port, String state) {
    String host = "127.0.0.1:" + port + "/test";
    return List.of(
        new Store(
            type,
            "userinfo " + state,
            "type: "
                + type
                + "\nurl: '"
                + scheme
                + "://"
                + user
                + ":"
                + PASSWORD
                + "@"
                + host
                + "'"),
        new Store(
            type,
            "query " + state,
            "type: "
                + type
                + "\nurl: '"
                + scheme
                + "://"
                + host
                + "?user="
                + user
                + "&password="
                + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8)
                + "'"),
        new Store(
            type,
            "password " + state,
            "type: "
                + type
                + "\nurl: "
                + scheme
                + "://"
                + host
                + "\nusername: "
                + user
                + "\npassword: "
                + quoted()));
  }

  private static List<Store> redis(int port, String state) {
    String node = "redis://:" + PASSWORD + "@127.0.0.1:" + port;
    return List.of(
        new Store("redis", "userinfo " + state, "type: redis\nurl: '" + node + "'"),
        new Store(
            "redis",
            "password " + state,
            "type: redis\nurl: redis://127.0.0.1:" + port + "\npassword: " + quoted()),
        new Store(
            "redlock",
            "userinfo " + state,
            "type: redlock\nurls:\n  - '" + node + "'\n  - '" + node + "'\n  - '" + node + "'"));
  }

  private static String quoted() {
    return "'" + PASSWORD + "'";
  }

  private Path write(String storeYaml, String admin) throws IOException {
    StringBuilder yaml = new StringBuilder("node: secret-test\nstore:\n");
    storeYaml.lines().forEach(l -> yaml.append("  ").append(l).append('\n'));
    yaml.append("  command-timeout: 1s\n");
    yaml.append(admin);
    yaml.append("jobs:\n  - name: tick\n    every: 1s\n    command: [\"true\"]\n");
    Path file = dir.resolve("secret-" + UUID.randomUUID() + ".yaml");
    Files.writeString(file, yaml);
    return file;
  }

  // --- checks ---------------------------------------------------------------------------------

  private static void assertNoSecret(String where, String text) {
    assertThat(text).as(where).doesNotContain(PLAIN);
    assertThat(text).as(where).doesNotContain(QUOTED);
    assertThat(text)
        .as(where + " (escaped)")
        .doesNotContain(QUOTED.replace("\\", "\\\\").replace("\"", "\\\""));
    assertThat(text).as(where).doesNotContain(PASSWORD);
    assertThat(text).as(where).doesNotContain(URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8));
    for (String piece : DELIMITERS.split(PASSWORD)) {
      assertThat(text).as(where + ": part " + piece).doesNotContain(piece);
    }
  }

  /** {@code run} with Leasehold's own log setup, stderr captured, until {@code until} is logged. */
  private String runLog(Path config, String until) throws Exception {
    return runLog(config, until, () -> {});
  }

  private String runLog(Path config, String until, Runnable whileRunning) throws Exception {
    return new CliHarness()
        .runLogged(
            config,
            "DEBUG",
            Duration.ofSeconds(90),
            "the daemon to log '" + until + "'",
            log -> log.contains(until),
            whileRunning);
  }

  private static String get(int port, String path) {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                  HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body();
    } catch (IOException e) {
      throw new AssertionError("GET " + path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static boolean reachable(int port) {
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
