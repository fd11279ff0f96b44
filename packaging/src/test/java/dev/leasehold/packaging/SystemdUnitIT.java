package dev.leasehold.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * examples/systemd/leasehold.service passes `systemd-analyze verify` with nothing to say (its
 * output is read: a value it cannot parse is only a warning with exit 0), and holds what the docs
 * promise. verify checks that ExecStart's program exists, so it runs on a copy whose only change is
 * the launcher's path: /opt/leasehold → the unpacked release tree.
 */
class SystemdUnitIT {
  private static final Path UNIT = Release.SOURCE.resolve("examples/systemd/leasehold.service");
  private Path dir;

  @BeforeEach
  void tempDir() throws IOException {
    dir = Files.createTempDirectory("leasehold-systemd-it-");
  }

  @AfterEach
  void remove() {
    Commands.deleteTree(dir);
  }

  @Test
  void theShippedUnitVerifiesWithoutAWord() throws IOException {
    String unit = Files.readString(UNIT);
    assertThat(unit).contains("ExecStart=/opt/leasehold/bin/leasehold run --config ");
    Commands.Result result = verify("leasehold.service", installedAt(unit, Release.TREE));
    assertThat(result.output()).as("systemd-analyze verify output").isEmpty();
    assertThat(result.exit()).isZero();
  }

  @Test
  void verifyReportsAUnitWithACommentAfterAValue() throws IOException {
    // the unit docs/operations.md used to show: proves that this test reads what verify says
    String broken =
        installedAt(Files.readString(UNIT), Release.TREE)
            .replace("TimeoutStopSec=60", "TimeoutStopSec=60   # shutdown-grace + kill-grace");
    Commands.Result result = verify("broken.service", broken);
    assertThat(result.output()).contains("Failed to parse time value");
  }

  @Test
  void theUnitHasItsUserDirectoryStopTimeoutAndInstallSection() throws IOException {
    List<String> lines = Files.readAllLines(UNIT);
    assertThat(lines)
        .contains(
            "User=leasehold",
            "WorkingDirectory=/var/lib/leasehold",
            "StateDirectory=leasehold",
            "KillMode=mixed",
            "RestartPreventExitStatus=2",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "PrivateTmp=yes",
            "[Install]",
            "WantedBy=multi-user.target");
    // no option that breaks the JVM or command jobs
    assertThat(lines)
        .noneMatch(line -> line.startsWith("MemoryDenyWriteExecute="))
        .noneMatch(line -> line.startsWith("SystemCallFilter="))
        .noneMatch(line -> line.startsWith("NoExecPaths="));
    // shutdown-grace (30 s) + the largest kill-grace (10 s) + a margin, with the defaults
    long timeout =
        lines.stream()
            .filter(line -> line.startsWith("TimeoutStopSec="))
            .mapToLong(line -> Long.parseLong(line.substring("TimeoutStopSec=".length())))
            .findFirst()
            .orElseThrow();
    assertThat(timeout).isGreaterThan(30 + 10);
  }

  private static String installedAt(String unit, Path tree) {
    return unit.replace("/opt/leasehold/bin/leasehold", tree.resolve("bin/leasehold").toString());
  }

  private Commands.Result verify(String name, String unit) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, unit);
    return Commands.run(
        List.of("systemd-analyze", "verify", file.toString()), Duration.ofMinutes(1));
  }
}
