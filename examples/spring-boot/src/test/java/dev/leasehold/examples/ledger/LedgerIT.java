package dev.leasehold.examples.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged sample, three processes of {@code java -jar} on the machine's MariaDB, node-c with a
 * wall clock 1.5 s ahead (libfaketime): every firing in the ledger ran once; then the same with the
 * replica that is running a firing killed (SIGKILL) in the middle of it.
 */
class LedgerIT {
  private static final Duration WORK = Duration.ofMillis(700);
  private static final Duration TTL = Duration.ofSeconds(6); // the sample's @OncePerFiring ttl

  @TempDir Path dir;
  private final Map<String, Process> nodes = new LinkedHashMap<>();

  @AfterEach
  void stopAll() throws Exception {
    for (Process p : nodes.values()) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    // the replicas' logs and the ledger stay in target/ledger-it for whoever reads a failure
    Path keep = Path.of("target", "ledger-it");
    Files.createDirectories(keep);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.copy(
            f, keep.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  record Line(Instant fire, String node, long fence) {}

  @Test
  void everyFiringRunsOnceWithASkewedClockAndWithAReplicaKilledMidRun() throws Exception {
    Path ledger = dir.resolve("ledger");
    String job = "sample-" + UUID.randomUUID().toString().substring(0, 8);
    startThree(job, ledger);
    waitUntilStarted(Duration.ofSeconds(120));
    Instant first = waitForLines(ledger, 1, Duration.ofSeconds(30)).get(0).fire();

    // 1. three replicas, node-c's clock 1.5 s ahead: every firing once, none missing
    Thread.sleep(12_000);
    List<Line> calm = read(ledger);
    assertOncePerFiring(calm);
    assertThat(calm).hasSizeGreaterThanOrEqualTo(5);
    assertNoGap(calm.stream().map(Line::fire).sorted().toList());
    // all three were up; node-c, 1.5 s ahead, calls first and, waiting out a run of the previous
    // firing that still holds the lease, takes its share (its calls are in target/ledger-it)
    assertThat(nodes.values()).allMatch(Process::isAlive);
    System.out.printf(
        "ledger before the kill: %d firings, by node %s%n",
        calm.size(),
        calm.stream()
            .collect(
                java.util.stream.Collectors.groupingBy(
                    Line::node, TreeMap::new, java.util.stream.Collectors.counting())));
    assertThat(calm).extracting(Line::node).contains("node-c");

    // 2. a new line is written at the start of a run that then works for 700 ms: kill its writer
    int before = calm.size();
    Line started = waitForLines(ledger, before + 1, Duration.ofSeconds(30)).get(before);
    nodes.get(started.node()).destroyForcibly();
    Instant killedAt = Instant.now();
    assertThat(nodes.get(started.node()).waitFor(30, TimeUnit.SECONDS)).isTrue();
    // the lease of the dead replica expires within its ttl; then the others go on
    Thread.sleep(TTL.plusSeconds(9).toMillis());
    for (Map.Entry<String, Process> e : nodes.entrySet()) {
      if (!e.getKey().equals(started.node())) {
        e.getValue().destroy(); // SIGTERM: Spring closes the context, the store with it
        assertThat(e.getValue().waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
    }

    List<Line> lines = read(ledger);
    assertOncePerFiring(lines);
    List<Line> after =
        lines.stream().filter(l -> l.fire().isAfter(killedAt.plus(TTL).plusSeconds(2))).toList();
    assertThat(after).hasSizeGreaterThanOrEqualTo(3);
    assertThat(after).extracting(Line::node).doesNotContain(started.node());
    assertNoGap(after.stream().map(Line::fire).sorted().toList());
    assertNoGap(
        lines.stream().map(Line::fire).filter(f -> !f.isAfter(started.fire())).sorted().toList());
    System.out.printf(
        "ledger: %d firings from %s, killed %s during %s, %d firings after its lease ended%n",
        lines.size(), first, started.node(), started.fire(), after.size());
  }

  private void startThree(String job, Path ledger) throws IOException {
    Path jar = Path.of(System.getProperty("sample.jar", "target/leasehold-spring-boot-sample.jar"));
    assertThat(jar).exists();
    Path faketime = libfaketime();
    for (String node : List.of("node-a", "node-b", "node-c")) {
      ProcessBuilder pb =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xmx128m",
              "-XX:TieredStopAtLevel=1",
              "-jar",
              jar.toString());
      Map<String, String> env = pb.environment();
      env.put("LEDGER", ledger.toString());
      env.put("NODE", node);
      env.put("SAMPLE_JOB", job);
      env.put("SAMPLE_WORK", WORK.toMillis() + "ms");
      env.put("LEASEHOLD_STORE_TYPE", "mariadb");
      env.put("LEASEHOLD_STORE_URL", "jdbc:mariadb://127.0.0.1:3306/test");
      env.put("LEASEHOLD_STORE_USERNAME", "root");
      env.put("LEASEHOLD_STORE_PASSWORD", "");
      env.put("LOGGING_LEVEL_DEV_LEASEHOLD_CORE_EXCLUSIVE", "DEBUG"); // each skipped call
      if (node.equals("node-c")) {
        env.put("LD_PRELOAD", faketime.toString());
        env.put("FAKETIME", "+1.5");
        env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        env.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
      }
      pb.redirectErrorStream(true);
      pb.redirectOutput(dir.resolve(node + ".log").toFile());
      nodes.put(node, pb.start());
    }
  }

  /** Until every replica's Spring context has started (its log says so). */
  private void waitUntilStarted(Duration limit) throws Exception {
    long end = System.nanoTime() + limit.toNanos();
    for (String node : nodes.keySet()) {
      Path log = dir.resolve(node + ".log");
      while (!Files.readString(log).contains("Started LedgerApplication")) {
        if (!nodes.get(node).isAlive()) {
          throw new AssertionError(node + " ended early:\n" + Files.readString(log));
        }
        if (System.nanoTime() > end) {
          throw new AssertionError(
              node + " did not start within " + limit + ":\n" + Files.readString(log));
        }
        Thread.sleep(100);
      }
    }
  }

  /** The library is required: without it the skew is not tested, so the test fails. */
  private static Path libfaketime() throws IOException {
    for (String d :
        List.of(
            "/usr/lib/x86_64-linux-gnu/faketime",
            "/usr/lib/aarch64-linux-gnu/faketime",
            "/usr/lib/faketime")) {
      Path p = Path.of(d, "libfaketime.so.1");
      if (Files.exists(p)) {
        return p;
      }
    }
    throw new IllegalStateException(
        "libfaketime.so.1 not found: install the Debian package faketime (.ci/services.sh does)");
  }

  private List<Line> waitForLines(Path ledger, int count, Duration limit) throws Exception {
    long end = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < end) {
      List<Line> lines = read(ledger);
      if (lines.size() >= count) {
        return lines;
      }
      for (Map.Entry<String, Process> e : nodes.entrySet()) {
        if (!e.getValue().isAlive()) {
          throw new AssertionError(
              e.getKey() + " ended early:\n" + Files.readString(dir.resolve(e.getKey() + ".log")));
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError(
        "fewer than " + count + " ledger lines after " + limit + "; logs in " + dir);
  }

  private static List<Line> read(Path ledger) throws IOException {
    if (!Files.exists(ledger)) {
      return List.of();
    }
    List<Line> lines = new ArrayList<>();
    try (Stream<String> s = Files.lines(ledger)) {
      s.filter(l -> !l.isBlank())
          .forEach(
              l -> {
                String[] f = l.split(" ");
                assertThat(f).as("ledger line '%s'", l).hasSize(3);
                lines.add(new Line(Instant.parse(f[0]), f[1], Long.parseLong(f[2])));
              });
    }
    return lines;
  }

  /** No firing twice; fences rise with the firings. */
  private static void assertOncePerFiring(List<Line> lines) {
    Map<Instant, List<Line>> byFire = new TreeMap<>();
    for (Line l : lines) {
      byFire.computeIfAbsent(l.fire(), k -> new ArrayList<>()).add(l);
    }
    Map<Instant, List<Line>> twice = new HashMap<>();
    byFire.forEach(
        (f, ls) -> {
          if (ls.size() > 1) {
            twice.put(f, ls);
          }
        });
    assertThat(twice).as("firings that ran more than once").isEmpty();
    List<Long> fences = byFire.values().stream().map(ls -> ls.get(0).fence()).toList();
    assertThat(fences).isSorted().doesNotHaveDuplicates();
  }

  /** Consecutive firings of the every-2-s cron: none missing. */
  private static void assertNoGap(List<Instant> fires) {
    for (int i = 1; i < fires.size(); i++) {
      assertThat(Duration.between(fires.get(i - 1), fires.get(i)))
          .as("gap before %s in %s", fires.get(i), fires)
          .isEqualTo(Duration.ofSeconds(2));
    }
  }
}
