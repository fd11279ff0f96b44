package dev.leasehold.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The container image, built with the recipe users run (from a locally made base instead of the
 * public one): its metadata, then three containers running examples/replicas.yaml on the test
 * MariaDB (host network) with their ledger on a shared volume: every firing once, no zombie left by
 * command jobs, a healthy /health, and `podman stop` graceful (exit 0, no lease left held).
 * Measures the image size and the start time inside a container next to the bare launcher's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainerImageIT {
  private static final List<String> NAMES = List.of("lh-it-a", "lh-it-b", "lh-it-c");
  private static final String DATABASE = "lh_packaging_image";
  private static final Pattern STARTED =
      Pattern.compile("(\\S+ \\S+) INFO +\\[leasehold\\] started: .* in (\\d+) ms");
  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT);

  private Podman podman;
  private Path work;

  @BeforeAll
  void buildImage() throws IOException {
    podman = Release.imageBuilt();
    work = Files.createTempDirectory("leasehold-image-it-");
    podman.removeContainers(NAMES.toArray(String[]::new));
    Commands.mariadb("DROP DATABASE IF EXISTS " + DATABASE + "; CREATE DATABASE " + DATABASE + ";");
  }

  @AfterAll
  void cleanUp() {
    if (podman != null) {
      podman.removeContainers(NAMES.toArray(String[]::new));
    }
    if (work != null) {
      // files written by the container's user: removed as root
      Commands.deleteTree(work);
    }
    Commands.mariadb("DROP DATABASE IF EXISTS " + DATABASE);
  }

  @Test
  void theImageCarriesItsVersionSourceUserHealthCheckAndInit() {
    Duration t = Duration.ofMinutes(1);
    assertThat(
            podman.ok(
                t,
                "image",
                "inspect",
                "--format",
                "{{index .Config.Labels \"org.opencontainers.image.version\"}}",
                Release.IMAGE))
        .isEqualTo(Release.VERSION);
    assertThat(
            podman.ok(
                t,
                "image",
                "inspect",
                "--format",
                "{{index .Config.Labels \"org.opencontainers.image.source\"}}",
                Release.IMAGE))
        .startsWith("https://");
    assertThat(podman.ok(t, "image", "inspect", "--format", "{{.Config.User}}", Release.IMAGE))
        .isEqualTo("leasehold:leasehold");
    assertThat(
            podman.ok(
                t, "image", "inspect", "--format", "{{json .Config.Entrypoint}}", Release.IMAGE))
        .contains("/usr/bin/tini");
    assertThat(podman.ok(t, "image", "inspect", Release.IMAGE))
        .contains("/opt/leasehold/bin/leasehold-healthcheck")
        .contains("/var/lib/leasehold");
    // the class-data archive was made in the image for its own JDK and jar, and fits them
    assertThat(
            podman.ok(
                t,
                "run",
                "--rm",
                "--entrypoint",
                "/opt/leasehold/bin/leasehold",
                Release.IMAGE,
                "--make-archive"))
        .contains("is up to date");
  }

  @Test
  void threeContainersRunEveryFiringOnceAndStopGracefully() throws Exception {
    Path shared = work.resolve("shared");
    Files.createDirectories(shared.resolve("data"));
    for (Path dir : List.of(shared, shared.resolve("data"))) {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    }
    Path config = work.resolve("replicas.yaml");
    Files.writeString(
        config,
        Files.readString(Release.SOURCE.resolve("examples/replicas.yaml"))
            + """
              - name: orphan-maker
                every: 3s
                command: ["sh", "-c", "(sleep 0.2 &); echo orphan left"]
            admin:
              listen: 127.0.0.1:${LEASEHOLD_ADMIN_PORT}
            """);
    Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));

    for (int i = 0; i < NAMES.size(); i++) {
      String name = NAMES.get(i);
      podman.ok(
          Duration.ofMinutes(2),
          "run",
          "-d",
          "--name",
          name,
          "--hostname",
          name,
          "--network",
          "host",
          "-e",
          "DB_URL=jdbc:mariadb://127.0.0.1:3306/" + DATABASE,
          "-e",
          "LEASEHOLD_ADMIN_PORT=" + (18471 + i),
          "-v",
          shared + ":/var/lib/leasehold",
          "-v",
          config + ":/etc/leasehold/leasehold.yaml:ro",
          Release.IMAGE);
    }
    for (String name : NAMES) {
      awaitLog(name, STARTED, Duration.ofMinutes(3));
    }
    Thread.sleep(25_000);

    for (String name : NAMES) {
      assertThat(podman.run(Duration.ofMinutes(1), "healthcheck", "run", name).exit())
          .as("health check of %s", name)
          .isZero();
      assertThat(
              podman.ok(
                  Duration.ofMinutes(1),
                  "exec",
                  name,
                  "sh",
                  "-c",
                  // -s: a process that exits between the glob and the read is not an error
                  "grep -ls '^State:.*Z' /proc/[0-9]*/status | wc -l"))
          .as("zombie processes in %s", name)
          .isEqualTo("0");
    }
    List<String> stop = new ArrayList<>(List.of("stop", "-t", "90"));
    stop.addAll(NAMES);
    podman.ok(Duration.ofMinutes(3), stop.toArray(String[]::new));
    for (String name : NAMES) {
      assertThat(
              podman.ok(Duration.ofMinutes(1), "inspect", "--format", "{{.State.ExitCode}}", name))
          .as("exit code of %s after podman stop", name)
          .isEqualTo("0");
      String log = podman.ok(Duration.ofMinutes(1), "logs", name);
      assertThat(log).contains("SIGTERM received: stopping gracefully").contains("] stopped");
      assertThat(log).as("the log of %s", name).doesNotContain("Exception");
    }
    assertThat(
            Commands.mariadb(
                    "SELECT COUNT(*) FROM "
                        + DATABASE
                        + ".task_lock WHERE holder IS NOT NULL AND lease_until > UTC_TIMESTAMP(3)")
                .output()
                .strip())
        .as("leases still held after every container stopped")
        .isEqualTo("0");
    assertThat(
            Commands.mariadb(
                    "SELECT COUNT(*) FROM "
                        + DATABASE
                        + ".task_execution WHERE UPPER(outcome) <> 'SUCCEEDED'")
                .output()
                .strip())
        .as(
            "executions that did not succeed: %s",
            Commands.mariadb(
                    "SELECT job, outcome, detail, COUNT(*) FROM "
                        + DATABASE
                        + ".task_execution WHERE UPPER(outcome) <> 'SUCCEEDED' GROUP BY job, outcome, detail")
                .output())
        .isEqualTo("0");

    List<String> ledger = Files.readAllLines(shared.resolve("data/ledger.txt"));
    Map<Instant, String> byFiring = new TreeMap<>();
    for (String line : ledger) {
      String[] fields = line.trim().split(" ");
      assertThat(fields).as("ledger line %s", line).hasSize(3);
      assertThat(NAMES).as("node of %s (the container's host name)", line).contains(fields[1]);
      assertThat(byFiring.put(Instant.parse(fields[0]), line))
          .as("a firing written twice: %s", line)
          .isNull();
    }
    long lastFence = 0;
    for (String line : byFiring.values()) {
      long fence = Long.parseLong(line.trim().split(" ")[2]);
      assertThat(fence).as("fence of %s, in firing order", line).isGreaterThan(lastFence);
      lastFence = fence;
    }
    List<Instant> firings = new ArrayList<>(byFiring.keySet());
    assertThat(firings).hasSizeGreaterThanOrEqualTo(10);
    for (int i = 1; i < firings.size(); i++) {
      assertThat(Duration.between(firings.get(i - 1), firings.get(i)))
          .as("gap in the ledger after %s", firings.get(i - 1))
          .isEqualTo(Duration.ofSeconds(2));
    }
    String executions =
        Commands.mariadb(
                "SELECT COUNT(*) FROM " + DATABASE + ".task_execution WHERE job = 'ledger'")
            .output()
            .strip();
    assertThat(Long.parseLong(executions)).isEqualTo(firings.size());

    report(firings.size());
  }

  /**
   * Image size, and start time inside a container next to the bare launcher's (the source tree's
   * bin/leasehold with the build's archive), one process at a time, alternating, same file.
   */
  private void report(int firings) throws Exception {
    long imageBytes = imageSize(Release.IMAGE);
    long baseBytes = imageSize(Podman.BASE_IMAGE);
    Path jar = Release.SOURCE.resolve("app/target/leasehold.jar");
    Path jsa = Release.SOURCE.resolve("app/target/leasehold.jsa");
    // the JDK's files, through its links into /usr/share and /etc (du complains of dangling ones)
    long jdkBytes =
        Commands.run(
                List.of("du", "-sb", "-L", System.getProperty("java.home")), Duration.ofMinutes(1))
            .output()
            .lines()
            .filter(line -> line.matches("\\d+\\s.*"))
            .mapToLong(line -> Long.parseLong(line.split("\\s+")[0]))
            .findFirst()
            .orElseThrow();
    long bareBytes = Files.size(jar) + (Files.exists(jsa) ? Files.size(jsa) : 0) + jdkBytes;

    Path config = work.resolve("replicas.yaml");
    Path bareDir = work.resolve("bare");
    Files.createDirectories(bareDir.resolve("data"));
    List<Long> containerUptime = new ArrayList<>();
    List<Long> containerLaunch = new ArrayList<>();
    List<Long> bareUptime = new ArrayList<>();
    List<Long> bareLaunch = new ArrayList<>();
    String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
    for (int round = 0; round < 3; round++) {
      String name = NAMES.get(0);
      podman.removeContainers(name);
      Instant launched = Instant.now();
      podman.ok(
          Duration.ofMinutes(2),
          "run",
          "-d",
          "--name",
          name,
          "--hostname",
          name,
          "--network",
          "host",
          "-e",
          "DB_URL=jdbc:mariadb://127.0.0.1:3306/" + DATABASE,
          "-e",
          "LEASEHOLD_ADMIN_PORT=18474",
          "-v",
          work.resolve("shared") + ":/var/lib/leasehold",
          "-v",
          config + ":/etc/leasehold/leasehold.yaml:ro",
          Release.IMAGE);
      Matcher started = awaitLog(name, STARTED, Duration.ofMinutes(3));
      containerUptime.add(Long.parseLong(started.group(2)));
      containerLaunch.add(millisSince(launched, started.group(1)));
      assertThat(
              podman.ok(
                  Duration.ofMinutes(1),
                  "exec",
                  name,
                  "sh",
                  "-c",
                  "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '"))
          .as("the JVM in the container uses the image's class-data archive")
          .contains("-XX:SharedArchiveFile=/opt/leasehold/lib/leasehold.jsa");
      podman.ok(Duration.ofMinutes(2), "stop", "-t", "90", name);

      Path log = bareDir.resolve("bare-" + round + ".log");
      launched = Instant.now();
      ProcessBuilder builder =
          new ProcessBuilder(
                  Release.SOURCE.resolve("bin/leasehold").toString(),
                  "run",
                  "--config",
                  config.toString())
              .directory(bareDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().put("NODE", "bare-" + round);
      builder.environment().put("DB_URL", "jdbc:mariadb://127.0.0.1:3306/" + DATABASE);
      builder.environment().put("LEASEHOLD_ADMIN_PORT", "18479");
      Process process = builder.start();
      try {
        Matcher bare = awaitFile(log, STARTED, Duration.ofMinutes(2));
        bareUptime.add(Long.parseLong(bare.group(2)));
        bareLaunch.add(millisSince(launched, bare.group(1)));
      } finally {
        process.destroy();
        assertThat(process.waitFor()).as("bare launcher's exit after SIGTERM").isZero();
      }
    }
    String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();
    long inside = median(containerUptime);
    long bare = median(bareUptime);
    long launch = median(containerLaunch);
    long bareLaunchMedian = median(bareLaunch);
    String text =
        String.format(
            Locale.ROOT,
            """
            container measurements (%s; load average before %s, after %s)
            image %s: %.0f MB (base %.0f MB + Leasehold %.0f MB); bare launcher on this host \
            (JDK %.0f MB + jar + archive): %.0f MB; ratio %.2f
            JVM start -> started: in the container %d ms (each: %s), bare launcher %d ms \
            (each: %s); ratio %.2f
            launch -> started: podman run %d ms (each: %s), bare launcher %d ms (each: %s); \
            ratio %.2f
            ledger: %d firings, each once
            """,
            Instant.now(),
            loadBefore,
            loadAfter,
            Release.IMAGE,
            imageBytes / 1e6,
            baseBytes / 1e6,
            (imageBytes - baseBytes) / 1e6,
            jdkBytes / 1e6,
            bareBytes / 1e6,
            (double) imageBytes / bareBytes,
            inside,
            containerUptime,
            bare,
            bareUptime,
            (double) inside / bare,
            launch,
            containerLaunch,
            bareLaunchMedian,
            bareLaunch,
            (double) launch / bareLaunchMedian,
            firings);
    System.out.println(text);
    Files.writeString(Release.BUILD_DIR.resolve("container-measurements.txt"), text);
  }

  private long imageSize(String image) {
    return Long.parseLong(
        podman.ok(Duration.ofMinutes(1), "image", "inspect", "--format", "{{.Size}}", image));
  }

  private Matcher awaitLog(String container, Pattern pattern, Duration timeout)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    String log = "";
    while (Instant.now().isBefore(deadline)) {
      log = podman.run(Duration.ofMinutes(1), "logs", container).output();
      Matcher matcher = pattern.matcher(log);
      if (matcher.find()) {
        return matcher;
      }
      Thread.sleep(500);
    }
    throw new AssertionError(container + " did not start within " + timeout + ":\n" + log);
  }

  private static Matcher awaitFile(Path file, Pattern pattern, Duration timeout)
      throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    String log = "";
    while (Instant.now().isBefore(deadline)) {
      log = Files.exists(file) ? Files.readString(file) : "";
      Matcher matcher = pattern.matcher(log);
      if (matcher.find()) {
        return matcher;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(file + ": no start within " + timeout + ":\n" + log);
  }

  /** From a launch instant to a log line's time stamp (containers and host log in UTC here). */
  private static long millisSince(Instant launched, String logTime) {
    Instant at = LocalDateTime.parse(logTime, LOG_TIME).toInstant(ZoneOffset.UTC);
    return Duration.between(launched, at).toMillis();
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }
}
