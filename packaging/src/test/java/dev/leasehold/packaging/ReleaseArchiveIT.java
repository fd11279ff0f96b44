package dev.leasehold.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The release archive unpacked into an empty directory outside the source tree runs the quickstart
 * from there; its first start makes the class-data archive for the JDK it finds (in the
 * background), and the next start uses it.
 */
class ReleaseArchiveIT {
  private Path home;

  @BeforeEach
  void unpack() throws IOException {
    home = Files.createTempDirectory(Path.of("/tmp"), "leasehold-release-it-");
    Commands.run(
            List.of("tar", "-xzf", Release.ARCHIVE.toString(), "-C", home.toString()),
            Duration.ofMinutes(2))
        .expectSuccess(List.of("tar", "-xzf", Release.ARCHIVE.toString()));
  }

  @AfterEach
  void remove() {
    Commands.deleteTree(home);
  }

  @Test
  void theUnpackedArchiveRunsTheQuickstartAndMakesItsClassDataArchive() throws Exception {
    Path root = home.resolve("leasehold-" + Release.VERSION);
    for (String file :
        List.of(
            "bin/leasehold",
            "lib/leasehold.jar",
            "README.md",
            "Containerfile",
            "container/entrypoint",
            "container/healthcheck",
            "examples/quickstart.yaml",
            "examples/replicas.yaml",
            "examples/family.yaml",
            "examples/scripts/morning-digest.sh",
            "examples/systemd/leasehold.service",
            "examples/compose/compose.yaml",
            "examples/kubernetes/leasehold.yaml",
            "docs/leasehold.schema.json")) {
      assertThat(root.resolve(file)).as(file).exists();
    }
    assertThat(Files.isExecutable(root.resolve("bin/leasehold"))).isTrue();
    assertThat(Files.readString(root.resolve("README.md"))).contains(Release.VERSION);
    assertThat(root.resolve("lib/leasehold.jsa")).doesNotExist();

    // first start: runs without an archive, and makes one in the background for the next start
    String first = runQuickstart(root, "first", Map.of());
    assertThat(first).contains("heartbeat fired at").contains("started: 3 jobs");
    Instant deadline = Instant.now().plus(Duration.ofMinutes(6));
    while ((!Files.exists(root.resolve("lib/leasehold.jsa"))
            || Files.exists(root.resolve("lib/leasehold.jsa.lock")))
        && Instant.now().isBefore(deadline)) {
      Thread.sleep(1000);
    }
    assertThat(root.resolve("lib/leasehold.jsa"))
        .as("the archive made after the first start")
        .exists();
    assertThat(root.resolve("lib/leasehold.jsa.lock")).doesNotExist();
    assertThat(
            Commands.run(
                    List.of("bin/leasehold", "--make-archive"),
                    Map.of(),
                    root,
                    Duration.ofMinutes(1))
                .expectSuccess(List.of("bin/leasehold", "--make-archive"))
                .output())
        .contains("is up to date");

    // second start: Leasehold's own classes come from the archive
    Path classes = home.resolve("class-load.log");
    String second =
        runQuickstart(
            root, "second", Map.of("LEASEHOLD_JAVA_OPTS", "-Xlog:class+load=info:file=" + classes));
    assertThat(second).contains("heartbeat fired at");
    assertThat(Files.readString(classes))
        .containsPattern("dev\\.leasehold\\.app\\.Main source: shared objects file");
    // the archive made by the launcher maps at the address it was made for on this JDK
    assertThat(Files.readAllLines(root.resolve("lib/leasehold.jsa.key")))
        .as("the archive's key")
        .hasSize(2)
        .last()
        .isEqualTo("fixed-address");

    String history =
        Commands.run(
                List.of("bin/leasehold", "history", "--config", "examples/quickstart.yaml"),
                Map.of(),
                root,
                Duration.ofMinutes(2))
            .expectSuccess(List.of("bin/leasehold", "history"))
            .output();
    assertThat(history).contains("heartbeat").contains("succeeded");
  }

  /** Runs the quickstart from the unpacked tree until a heartbeat ran, then SIGTERM: exit 0. */
  private String runQuickstart(Path root, String name, Map<String, String> env) throws Exception {
    Path log = home.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder("bin/leasehold", "run", "--config", "examples/quickstart.yaml")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    try {
      Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
      // the heartbeat (every 2 s) is asserted: wait for it, not for whichever job ran first (the
      // tea reminder, when the start ends on an odd second)
      while (Instant.now().isBefore(deadline) && process.isAlive() && !ranTheHeartbeat(log)) {
        Thread.sleep(250);
      }
    } finally {
      process.destroy();
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("stopped within 60 s").isTrue();
    String output = Files.readString(log);
    assertThat(process.exitValue()).as("exit after SIGTERM:\n%s", output).isZero();
    assertThat(output).contains("outcome=succeeded").contains("stopped");
    return output;
  }

  private static boolean ranTheHeartbeat(Path log) throws java.io.IOException {
    String text = Files.readString(log);
    return text.contains("heartbeat fired at") && text.contains("outcome=succeeded");
  }
}
