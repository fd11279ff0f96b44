package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two daemon processes in a row on the same embedded H2 file, the second started the moment the
 * first has exited: after a graceful stop, and after SIGKILL (which leaves H2's lock file behind).
 * The second opens the file on its first attempt each time: no "not reachable" retry line, no pool
 * timeout, and its scheduler starts.
 */
class H2BackToBackIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void aSecondDaemonOpensTheFileRightAfterTheFirstStopped() {
    Daemon daemon = Daemon.start(box, "h2-a", config(), 0).awaitStarted();
    for (int cycle = 1; cycle <= 3; cycle++) {
      assertThat(daemon.stop()).as("exit code of run %d", cycle).isZero();
      daemon.restart();
      daemon.awaitStarted();
      assertOpenedAtOnce(daemon, cycle);
    }
    assertThat(daemon.stop()).isZero();
  }

  @Test
  void aSecondDaemonOpensTheFileRightAfterTheFirstWasKilled() {
    Daemon daemon = Daemon.start(box, "h2-a", config(), 0).awaitStarted();
    for (int cycle = 1; cycle <= 2; cycle++) {
      daemon.kill(null);
      daemon.proc().awaitExit(java.time.Duration.ofSeconds(30));
      daemon.restart();
      daemon.awaitStarted();
      assertOpenedAtOnce(daemon, cycle);
    }
    assertThat(daemon.stop()).isZero();
  }

  private static void assertOpenedAtOnce(Daemon daemon, int cycle) {
    assertThat(daemon.logged("is not reachable")).as("retried in start %d", cycle).isFalse();
    assertThat(daemon.logged("Connection is not available")).as("start %d", cycle).isFalse();
  }

  private Path config() {
    String store = "type: h2\nurl: jdbc:h2:file:" + box.dir().resolve("data/leasehold") + "\n";
    return Configs.write(
        box.dir(), "h2-a", store, "ttl: 30s", "name: tick\nevery: 1m\n" + Configs.shell("true"));
  }
}
