package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate --connect} of the daemon jar, as a real process, against stores where nothing
 * listens: the whole of stderr is the one plain line (no driver's own warnings or stack traces from
 * its reconnect attempts), and the exit code is 1.
 */
class ConnectionErrorsJarIT {
  @TempDir Path dir;

  @Test
  void stderrIsTheOneLineAndNothingElse() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String at = "127.0.0.1:" + port;
    List<String[]> stores =
        List.of(
            new String[] {
              "zookeeper",
              "  type: zookeeper\n  url: zk://" + at + "\n",
              "ZooKeeper store: cannot connect to ZooKeeper at " + at + ": connection refused"
            },
            new String[] {
              "mariadb",
              "  type: mariadb\n  url: jdbc:mariadb://" + at + "/test\n",
              "SQL store: cannot connect to MariaDB/MySQL at " + at + ": connection refused"
            },
            new String[] {
              "redis",
              "  type: redis\n  url: redis://" + at + "/0\n",
              "Redis store: cannot connect to Redis at " + at + "/0: connection refused"
            },
            new String[] {
              "mongo",
              "  type: mongo\n  url: mongodb://" + at + "/lh\n",
              "MongoDB store: cannot connect to MongoDB at " + at + ": connection refused"
            });
    for (String[] store : stores) {
      Path config = dir.resolve(store[0] + ".yaml");
      Files.writeString(
          config,
          "store:\n"
              + store[1]
              + "  command-timeout: 20s\njobs:\n  - name: a\n    every: 1m\n    command: [\"true\"]\n");
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(BlackBox.jvmOptions());
      command.add("-jar");
      command.add(BlackBox.jar().toString());
      command.addAll(List.of("validate", "--connect", "--config", config.toString()));
      Path err = dir.resolve(store[0] + ".err");
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(dir.resolve(store[0] + ".out").toFile())
              .redirectError(err.toFile())
              .start();
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(store[0] + " ended").isTrue();
      String stderr = read(err);
      assertThat(p.exitValue()).as(store[0] + ": " + stderr).isEqualTo(1);
      assertThat(stderr.lines()).as(store[0]).singleElement().asString().endsWith(store[2]);
    }
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
