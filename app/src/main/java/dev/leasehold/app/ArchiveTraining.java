package dev.leasehold.app;

import dev.leasehold.app.cli.Cli;
import dev.leasehold.app.cli.CliContext;
import dev.leasehold.app.wiring.StoreModules;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The workload the build runs once under {@code -XX:DumpLoadedClassList} to list the classes of the
 * class-data archive ({@code leasehold.jsa}, then dumped by {@code -Xshare:dump}) that {@code
 * bin/leasehold} hands to the JVM: every command of the CLI, in one JVM, against an embedded H2
 * file in a temporary directory ({@code --help}, {@code validate}, {@code validate --connect},
 * {@code trigger --here}, {@code status --from-store}, {@code history}; then {@code run} and, while
 * it runs, {@code status} and {@code nodes} asking it, until it is stopped). The classes they load
 * are the ones a real start-up loads, so the archive holds them parsed and verified.
 *
 * <p>It never fails the build: a command that does not exit 0 is reported on stderr and the
 * training goes on (the archive then holds fewer classes, which only costs start-up time).
 */
public final class ArchiveTraining {
  /** The key's second line when {@link #mapsAtItsOwnAddress} holds for the archive's JDK. */
  static final String FIXED_ADDRESS = "fixed-address";

  private ArchiveTraining() {}

  public static void main(String[] args) throws IOException {
    writeArchiveKey();
    Main.prepareJvm();
    Path dir = Files.createTempDirectory("leasehold-training-");
    int failures = 0;
    try {
      Path config = dir.resolve("training.yaml");
      int adminPort = freePort();
      Files.writeString(config, config(dir.resolve("store").toAbsolutePath(), adminPort));
      String file = config.toString();
      for (List<String> command :
          List.of(
              List.of("--help"),
              List.of("--version"),
              List.of("validate", "--config", file),
              List.of("validate", "--connect", "--config", file),
              List.of("trigger", "--here", "--config", file, "tick"),
              List.of("status", "--from-store", "--config", file),
              List.of("history", "--config", file),
              List.of("history", "--json", "--config", file))) {
        failures += execute(command, context(action -> {}));
      }
      failures += withDaemon(file, adminPort);
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
   * {@code run} in a thread of this JVM until its admin endpoint answers, then the commands an
   * operator runs beside a daemon ({@code status} and {@code status --json}, answered by the daemon
   * over loopback, and {@code nodes}); then the daemon is stopped as SIGTERM would stop it. Without
   * the daemon, {@code status} would train only its fall-back path, the store's.
   */
  private static int withDaemon(String file, int adminPort) {
    AtomicReference<Runnable> stop = new AtomicReference<>();
    AtomicInteger runFailures = new AtomicInteger();
    Thread run =
        new Thread(
            () -> runFailures.set(execute(List.of("run", "--config", file), context(stop::set))),
            "training-run");
    run.setDaemon(true);
    run.start();
    int failures = 0;
    try {
      if (awaitHealth(adminPort, Duration.ofSeconds(60))) {
        for (List<String> command :
            List.of(
                List.of("status", "--config", file),
                List.of("status", "--json", "--config", file),
                List.of("nodes", "--config", file))) {
          failures += execute(command, context(action -> {}));
        }
      } else {
        System.err.println("archive training: 'run' did not answer on its admin port");
        failures++;
      }
    } finally {
      Runnable action = stop.get();
      if (action != null) {
        action.run();
      }
      try {
        run.join(Duration.ofSeconds(60).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return failures + runFailures.get();
  }

  private static int execute(List<String> command, CliContext context) {
    int code = new Cli(context).execute(command.toArray(String[]::new));
    if (code == Cli.OK) {
      return 0;
    }
    System.err.println("archive training: '" + String.join(" ", command) + "' exited " + code);
    return 1;
  }

  /** Whether {@code GET /health} on the loopback port answered 200 within {@code limit}. */
  private static boolean awaitHealth(int port, Duration limit) {
    long end = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < end) {
      try {
        HttpURLConnection c =
            (HttpURLConnection)
                URI.create("http://127.0.0.1:" + port + "/health").toURL().openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        try {
          if (c.getResponseCode() == 200) {
            return true;
          }
        } finally {
          c.disconnect();
        }
      } catch (IOException e) {
        // not listening yet
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /**
   * Next to the jar, {@code leasehold.jsa.key}: the jar's physical path, size and modification time
   * (seconds) and the JDK's home and the modification time of its {@code lib/modules}. The archive
   * holds the JDK's classes as well as Leasehold's, and a JVM refuses it whole (then starting
   * without even the JDK's own archive) unless it is the same JDK and the very same jar file:
   * {@code bin/leasehold} compares this line with what it finds and passes the archive only when
   * they match. A second line, {@value #FIXED_ADDRESS}, tells it that the JDK accepts the option
   * that maps the archive without relocating it ({@link #mapsAtItsOwnAddress}). Nothing is written
   * when the classes do not come from a jar. The system property {@code leasehold.archive.key}
   * names another file (the launcher's AOT cache key, {@code leasehold.aot.key}).
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
    // a second line when this JDK maps the archive at the address it was made for on request
    String placement = mapsAtItsOwnAddress(jdk) ? FIXED_ADDRESS + "\n" : "";
    // bin/leasehold names another file for the AOT cache it makes on JDK 25 and later, so the
    // class-data archive's key (JDK 17's) stays as it is
    String target = System.getProperty("leasehold.archive.key");
    Files.writeString(
        target != null
            ? Path.of(target)
            : jar.resolveSibling(name.substring(0, name.length() - 4) + ".jsa.key"),
        key + "\n" + placement);
  }

  /**
   * Whether the JDK at {@code jdk} starts with {@code -XX:+UnlockDiagnosticVMOptions
   * -XX:ArchiveRelocationMode=0}: it then maps the archive at the address it was made for instead
   * of relocating every pointer in it to a random address at each start, which JDK 17.0.15 does by
   * default and which takes most of a start's first 200 ms with an archive of this size. The option
   * is diagnostic and may not exist in every JDK, so it is tried here once, with the JDK the
   * archive is made for, and {@code bin/leasehold} passes it only when the key says so.
   */
  static boolean mapsAtItsOwnAddress(Path jdk) {
    try {
      Process probe =
          new ProcessBuilder(
                  jdk.resolve("bin/java").toString(),
                  "-XX:+UnlockDiagnosticVMOptions",
                  "-XX:ArchiveRelocationMode=0",
                  "-version")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!probe.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        probe.destroyForcibly();
        return false;
      }
      return probe.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static long seconds(Path file) throws IOException {
    return Files.getLastModifiedTime(file).to(java.util.concurrent.TimeUnit.SECONDS);
  }

  /**
   * A loopback port nobody listens on now: {@code run} serves its admin endpoint on it, and {@code
   * status} finds the daemon there.
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
   * Answers discarded, errors on stderr, logging configured as the real entry point does; the stop
   * action a command registers ({@code run} does) goes to {@code stopAction}.
   */
  private static CliContext context(Consumer<Runnable> stopAction) {
    return new CliContext(
        System.getenv(),
        new PrintWriter(Writer.nullWriter()),
        new PrintWriter(System.err, true),
        StoreModules::discover,
        stopAction::accept,
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
