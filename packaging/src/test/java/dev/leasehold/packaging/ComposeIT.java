package dev.leasehold.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * examples/compose/ run by podman-compose as far as this machine allows: no image registry, so the
 * MariaDB service (docker.io/library/mariadb) is replaced by the local test MariaDB, reached over
 * the host network, with a user whose password is the example's secret file. The three gateways run
 * the image built from the release (tag as in the file), read their password and admin token from
 * the secret files, run the family jobs (triggered: their crons fire at 02:00, 06:30, 08:00 and
 * Sunday 18:00) each once, share their working volume, and stop gracefully.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ComposeIT {
  private static final String PROJECT = "lhcompose";
  private static final String DATABASE = "lh_packaging_compose";
  private static final String USER = "lh_compose";
  private static final List<String> GATEWAYS = List.of("gateway-1", "gateway-2", "gateway-3");
  private static final String CONFIG = "/etc/leasehold/leasehold.yaml";

  private Podman podman;
  private Path dir;
  private Path file;

  @BeforeAll
  void setUp() throws Exception {
    podman = Release.imageBuilt();
    dir = Files.createTempDirectory("leasehold-compose-it-").resolve("compose");
    Commands.run(
            List.of(
                "cp", "-r", Release.SOURCE.resolve("examples/compose").toString(), dir.toString()),
            Duration.ofMinutes(1))
        .expectSuccess(List.of("cp", "-r", "examples/compose"));
    // as the file's header says: a token of one's own (the example ships none)
    byte[] random = new byte[16];
    new java.security.SecureRandom().nextBytes(random);
    Files.writeString(
        dir.resolve("secrets/admin-token.txt"), java.util.HexFormat.of().formatHex(random) + "\n");
    file = dir.resolve("compose.test.yaml");
  }

  @AfterAll
  void tearDown() {
    if (file != null && Files.exists(file)) {
      compose(Duration.ofMinutes(3), "down", "-v");
      podman.run(Duration.ofMinutes(1), "network", "rm", "-f", PROJECT + "_default");
    }
    if (dir != null) {
      Commands.deleteTree(dir.getParent());
    }
    Commands.mariadb(
        "DROP DATABASE IF EXISTS " + DATABASE + "; DROP USER IF EXISTS '" + USER + "'@'%';");
  }

  @Test
  @SuppressWarnings("unchecked")
  void theHouseholdsComposeFileRunsItsGatewaysOnTheLocalMariaDb() throws Exception {
    Map<String, Object> compose = new Yaml().load(Files.readString(dir.resolve("compose.yaml")));
    Map<String, Map<String, Object>> services =
        (Map<String, Map<String, Object>>) compose.get("services");
    assertThat(services.keySet())
        .containsExactlyInAnyOrder("gateway-1", "gateway-2", "gateway-3", "mariadb");
    for (String gateway : GATEWAYS) {
      Map<String, Object> service = services.get(gateway);
      assertThat(service.get("image")).isEqualTo(Release.IMAGE);
      assertThat(service.get("hostname")).isEqualTo(gateway);
      assertThat((List<String>) service.get("secrets")).contains("db-password", "admin-token");
      assertThat(service.containsKey("ports"))
          .as("%s publishes a port", gateway)
          .isEqualTo(gateway.equals("gateway-1"));
    }
    String password = Files.readString(dir.resolve("secrets/db-password.txt")).strip();
    String token = Files.readString(dir.resolve("secrets/admin-token.txt")).strip();

    // this machine: no MariaDB image, so the local server (host network) with the secret's password
    Commands.mariadb(
        "DROP DATABASE IF EXISTS "
            + DATABASE
            + "; CREATE DATABASE "
            + DATABASE
            + ";"
            + " DROP USER IF EXISTS '"
            + USER
            + "'@'%';"
            + " CREATE USER '"
            + USER
            + "'@'%' IDENTIFIED BY '"
            + password
            + "';"
            + " GRANT ALL ON "
            + DATABASE
            + ".* TO '"
            + USER
            + "'@'%';");
    services.remove("mariadb");
    ((Map<String, Object>) compose.get("volumes")).remove("mariadb-data");
    ((Map<String, Object>) compose.get("secrets")).remove("db-root-password");
    compose.remove("x-leasehold");
    for (int i = 0; i < GATEWAYS.size(); i++) {
      Map<String, Object> service = new LinkedHashMap<>(services.get(GATEWAYS.get(i)));
      service.remove("depends_on");
      service.remove("ports");
      service.put("network_mode", "host");
      Map<String, Object> env =
          new LinkedHashMap<>((Map<String, Object>) service.get("environment"));
      env.put("STORE_URL", "jdbc:mariadb://127.0.0.1:3306/" + DATABASE);
      env.put("STORE_USER", USER);
      env.put("LEASEHOLD_ADMIN_PORT", String.valueOf(18481 + i));
      service.put("environment", env);
      services.put(GATEWAYS.get(i), service);
    }
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    Files.writeString(file, new Yaml(options).dump(compose));

    compose(Duration.ofMinutes(5), "up", "-d").expectSuccess(List.of("podman-compose", "up"));
    for (String gateway : GATEWAYS) {
      awaitLog(container(gateway), "] started: 4 jobs", Duration.ofMinutes(3));
    }

    // the family jobs run in the image: each triggered firing runs once, on one gateway
    for (String job : List.of("morning-health-digest", "incremental-backup")) {
      Commands.Result triggered =
          podman.run(
              Duration.ofMinutes(3),
              "exec",
              container("gateway-2"),
              "leasehold",
              "trigger",
              "--config",
              CONFIG,
              job);
      assertThat(triggered.exit()).as("trigger %s:\n%s", job, triggered.output()).isZero();
    }
    // the backup went to the shared working volume: every gateway sees it
    assertThat(
            podman.ok(
                Duration.ofMinutes(1),
                "exec",
                container("gateway-3"),
                "ls",
                "/var/lib/leasehold/backups"))
        .isNotBlank();

    // the admin page of gateway-1, with the token read from its secret file
    HttpClient http = HttpClient.newHttpClient();
    URI health = URI.create("http://127.0.0.1:18481/health");
    assertThat(
            http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(200);
    URI trigger = URI.create("http://127.0.0.1:18481/jobs/medication-check-in/trigger");
    assertThat(
            http.send(
                    HttpRequest.newBuilder(trigger)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .as("trigger over HTTP without the token")
        .isEqualTo(401);
    HttpResponse<String> withToken =
        http.send(
            HttpRequest.newBuilder(trigger)
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(withToken.statusCode())
        .as("with the token: %s", withToken.body())
        .isBetween(200, 299);

    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    String history = "";
    while (Instant.now().isBefore(deadline)) {
      history =
          podman.ok(
              Duration.ofMinutes(2),
              "exec",
              container("gateway-1"),
              "leasehold",
              "history",
              "--json",
              "--config",
              CONFIG);
      if (history.contains("medication-check-in") && history.contains("succeeded")) {
        break;
      }
      Thread.sleep(1000);
    }
    for (String job :
        List.of("morning-health-digest", "incremental-backup", "medication-check-in")) {
      assertThat(
              Commands.mariadb(
                      "SELECT COUNT(*) FROM "
                          + DATABASE
                          + ".task_execution WHERE job = '"
                          + job
                          + "' AND UPPER(outcome) = 'SUCCEEDED'")
                  .output()
                  .strip())
          .as("successful runs of %s", job)
          .isEqualTo("1");
    }
    String logs = "";
    for (String gateway : GATEWAYS) {
      logs += podman.ok(Duration.ofMinutes(1), "logs", container(gateway));
    }
    assertThat(logs).doesNotContain(password).doesNotContain(token);

    compose(Duration.ofMinutes(4), "stop").expectSuccess(List.of("podman-compose", "stop"));
    for (String gateway : GATEWAYS) {
      assertThat(
              podman.ok(
                  Duration.ofMinutes(1),
                  "inspect",
                  "--format",
                  "{{.State.ExitCode}}",
                  container(gateway)))
          .as("exit code of %s", gateway)
          .isEqualTo("0");
      assertThat(podman.ok(Duration.ofMinutes(1), "logs", container(gateway)))
          .contains("SIGTERM received: stopping gracefully");
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void theRedisVariantSwitchesEveryGatewayToRedis() throws Exception {
    Map<String, Object> variant =
        new Yaml().load(Files.readString(dir.resolve("compose.redis.yaml")));
    Map<String, Map<String, Object>> services =
        (Map<String, Map<String, Object>>) variant.get("services");
    assertThat(services.keySet()).contains("redis").containsAll(GATEWAYS);
    for (String gateway : GATEWAYS) {
      Map<String, Object> env = (Map<String, Object>) services.get(gateway).get("environment");
      assertThat(env).containsEntry("STORE_TYPE", "redis");
      // the configuration with this variant's settings is valid (checked in the image)
      List<String> args =
          new ArrayList<>(
              List.of(
                  "run",
                  "--rm",
                  "--network",
                  "none",
                  "-v",
                  dir.resolve("leasehold.yaml") + ":" + CONFIG + ":ro",
                  "-v",
                  dir.resolve("secrets/redis-password.txt") + ":/run/secrets/redis-password:ro",
                  "-v",
                  dir.resolve("secrets/admin-token.txt") + ":/run/secrets/admin-token:ro",
                  "-e",
                  "LEASEHOLD_ADMIN_TOKEN_FILE=/run/secrets/admin-token"));
      env.forEach((key, value) -> args.addAll(List.of("-e", key + "=" + value)));
      args.addAll(List.of(Release.IMAGE, "validate", "--config", CONFIG));
      Commands.Result result = podman.run(Duration.ofMinutes(2), args.toArray(String[]::new));
      assertThat(result.exit()).as("validate:\n%s", result.output()).isZero();
      break; // the three gateways share one setting (an alias); one run checks it
    }
  }

  private Commands.Result compose(Duration timeout, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "podman-compose",
                "--podman-path",
                podmanForCompose().toString(),
                "-p",
                PROJECT,
                "-f",
                file.toString()));
    command.addAll(List.of(args));
    return Commands.run(command, podman.env(), dir, timeout);
  }

  /**
   * podman for podman-compose 1.0.3, which adds {@code --net PROJECT_default --network-alias
   * SERVICE} even to a service with {@code network_mode: host}, and podman refuses both there: for
   * such a {@code run}, this wrapper drops those two options (and nothing else).
   */
  private Path podmanForCompose() {
    Path wrapper = Release.BUILD_DIR.resolve("podman/podman-for-compose");
    try {
      Files.writeString(
          wrapper,
          """
          #!/bin/sh
          if [ "$1" = run ] && printf '%s\n' "$@" | grep -qx -- '--network' \
             && printf '%s\n' "$@" | grep -qx host; then
            skip=0
            for arg in "$@"; do
              shift
              if [ "$skip" = 1 ]; then skip=0; continue; fi
              case "$arg" in --net|--network-alias) skip=1; continue ;; esac
              set -- "$@" "$arg"
            done
          fi
          exec podman "$@"
          """);
      wrapper.toFile().setExecutable(true);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return wrapper;
  }

  private static String container(String service) {
    return PROJECT + "_" + service + "_1";
  }

  private void awaitLog(String container, String text, Duration timeout)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    String log = "";
    while (Instant.now().isBefore(deadline)) {
      log = podman.run(Duration.ofMinutes(1), "logs", container).output();
      if (log.contains(text)) {
        return;
      }
      Thread.sleep(500);
    }
    throw new AssertionError(container + ": no '" + text + "' within " + timeout + ":\n" + log);
  }
}
