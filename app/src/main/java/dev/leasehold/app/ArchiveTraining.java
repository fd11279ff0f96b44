package dev.leasehold.app;

import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.wiring.StoreModules;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The workload the build runs once under {@code -XX:DumpLoadedClassList} to list the classes of the
 * class-data archive ({@code leasehold.jsa}, then dumped by {@code -Xshare:dump}) that {@code
 * bin/leasehold} hands to the JVM: every command of the CLI, in one JVM, against an embedded H2
 * file in a temporary directory ({@code --help}, {@code validate}, {@code validate --connect},
 * {@code trigger --here}, {@code status}, {@code history}, and {@code run} up to the point where it
 * has started and is asked to stop). The classes they load are the ones a real start-up loads, so
 * the archive holds them parsed and verified.
 *
 * <p>It never fails the build: a command that does not exit 0 is reported on stderr and the
 * training goes on (the archive then holds fewer classes, which only costs start-up time).
 */
public final class ArchiveTraining {
  private ArchiveTraining() {}

  public static void main(String[] args) throws IOException {
    writeArchiveKey();
    Main.prepareJvm();
    Path dir = Files.createTempDirectory("leasehold-training-");
    int failures = 0;
    try {
      Path config = dir.resolve("training.yaml");
      Files.writeString(config, config(dir.resolve("store").toAbsolutePath(), freePort()));
      String file = config.toString();
      for (List<String> command :
          List.of(
              List.of("--help"),
              List.of("--version"),
              List.of("validate", "--config", file),
              List.of("validate", "--connect", "--config", file),
              List.of("trigger", "--here", "--config", file, "tick"),
              List.of("status", "--config", file),
              List.of("status", "--json", "--config", file),
              List.of("history", "--config", file),
              List.of("history", "--json", "--config", file),
              List.of("run", "--config", file))) {
        int code =
            new Cli(context(command.get(0).equals("run"))).execute(command.toArray(String[]::new));
        if (code != Cli.OK) {
          failures++;
          System.err.println("archive training: '" + command.get(0) + "' exited " + code);
        }
      }
    } finally {
      delete(dir);
    }
    if (failures > 0) {
      System.err.println("archive training: " + failures + " command(s) failed");
    }
    // the JVM writes the class list as classes load; no thread of the commands may hold up the exit
    System.exit(0);
  }

  /**
   * Next to the jar, {@code leasehold.jsa.key}: the jar's physical path, size and modification time
   * (seconds) and the JDK's home and the modification time of its {@code lib/modules}. The archive
   * holds the JDK's classes as well as Leasehold's, and a JVM refuses it whole (then starting
   * without even the JDK's own archive) unless it is the same JDK and the very same jar file:
   * {@code bin/leasehold} compares this line with what it finds and passes the archive only when
   * they match. Nothing is written when the classes do not come from a jar.
   */
  private static void writeArchiveKey() throws IOException {
    Path jar;
    try {
      jar =
          Path.of(ArchiveTraining.class.getProtectionDomain().getCodeSource().getLocation().toURI())
              .toRealPath();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return;
    }
    String name = jar.getFileName().toString();
    if (!name.endsWith(".jar")) {
      return;
    }
    Path jdk = Path.of(System.getProperty("java.home")).toRealPath();
    String key =
        jar
            + " "
            + Files.size(jar)
            + " "
            + seconds(jar)
            + " "
            + jdk
            + " "
            + seconds(jdk.resolve("lib/modules"));
    Files.writeString(
        jar.resolveSibling(name.substring(0, name.length() - 4) + ".jsa.key"), key + "\n");
  }

  private static long seconds(Path file) throws IOException {
    return Files.getLastModifiedTime(file).to(java.util.concurrent.TimeUnit.SECONDS);
  }

  /**
   * A loopback port nobody listens on now: {@code status} tries a local daemon there first (and
   * finds none), {@code run} serves its admin endpoint on it.
   */
  private static int freePort() throws IOException {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String config(Path store, int adminPort) {
    return """
        node: training
        store:
          type: h2
          url: jdbc:h2:file:%s
        admin:
          listen: 127.0.0.1:%d
        log:
          level: warn
        jobs:
          - name: tick
            every: 1s
            command: ["sh", "-c", "echo tick"]
          - name: nightly
            cron: "0 2 * * *"
            zone: UTC
            command: ["sh", "-c", "echo nightly"]
        """
        .formatted(store, adminPort);
  }

  /**
   * Answers discarded, errors on stderr, logging configured as the real entry point does; {@code
   * run} is told to stop at once, other commands are never told to stop.
   */
  private static CliContext context(boolean stopAtOnce) {
    return new CliContext(
        System.getenv(),
        new PrintWriter(Writer.nullWriter()),
        new PrintWriter(System.err, true),
        StoreModules::discover,
        action -> {
          if (!stopAtOnce) {
            return;
          }
          // 'run' registers its stop action before it opens the store: asked to stop at once, it
          // still opens the store, starts the scheduler, logs 'started:' and then stops
          Thread stop = new Thread(action, "training-stop");
          stop.setDaemon(true);
          stop.start();
        },
        true,
        Clock.systemUTC());
  }

  private static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(ArchiveTraining::deleteOne);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteOne(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
