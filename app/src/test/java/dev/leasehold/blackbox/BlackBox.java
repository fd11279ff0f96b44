package dev.leasehold.blackbox;

import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The test's world: a directory {@code target/blackbox/<class>/<test>/} for configs, ledgers and
 * logs, and every process the test started. After each test, whatever happened, every process group
 * is SIGKILLed and every resource (databases, schemas, keys) is cleaned up; when the test failed,
 * the tail of every process log is printed first. A test may use it from several threads (two
 * scenarios at once on one store).
 */
public final class BlackBox implements BeforeEachCallback, AfterEachCallback {
  private static final int TAIL_LINES = 80;

  private Path dir;
  private final List<Proc> procs = new ArrayList<>();
  private final Deque<AutoCloseable> cleanups = new ArrayDeque<>();
  private final Map<String, Integer> starts = new HashMap<>();

  /** The daemon jar under test ({@code -Dleasehold.jar}, set by failsafe). */
  public static Path jar() {
    Path jar =
        Path.of(System.getProperty("leasehold.jar", "target/leasehold.jar")).toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      Assertions.fail(jar + " is missing: build it with mvn -pl app -am package");
    }
    return jar;
  }

  /**
   * The JVM options of every daemon and command a test starts: serial GC and C1 only (several
   * processes share 2 cores with the build), and the class-data archive the build makes beside the
   * jar ({@code leasehold.jsa}, made by the same JDK) when it is there, which halves a daemon's
   * start-up CPU. A stale or foreign archive is ignored by the JVM, silently.
   */
  static List<String> jvmOptions() {
    List<String> options = new ArrayList<>(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    Path archive = jar().resolveSibling("leasehold.jsa");
    if (Files.isRegularFile(archive)) {
      options.addAll(
          List.of(
              "-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off,cds+dynamic=off"));
    }
    return options;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir =
        jar()
            .getParent()
            .resolve("blackbox")
            .resolve(context.getRequiredTestClass().getSimpleName())
            .resolve(context.getRequiredTestMethod().getName());
    deleteRecursively(dir);
    Files.createDirectories(dir);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    synchronized (procs) {
      procs.forEach(Proc::destroy);
      if (context.getExecutionException().isPresent()) {
        for (Proc p : procs) {
          System.err.printf(
              "==== %s: last %d lines of %s ====%n%s%n",
              p, TAIL_LINES, p.log(), p.tail(TAIL_LINES));
        }
      }
      procs.clear();
    }
    while (true) {
      AutoCloseable next;
      synchronized (cleanups) {
        if (cleanups.isEmpty()) {
          break;
        }
        next = cleanups.pop();
      }
      try {
        next.close();
      } catch (Exception e) {
        System.err.println("cleanup failed: " + e);
      }
    }
  }

  public Path dir() {
    return dir;
  }

  /** Closes {@code resource} after the test (last registered, first closed). */
  public <T extends AutoCloseable> T closeAfter(T resource) {
    synchronized (cleanups) {
      cleanups.push(resource);
    }
    return resource;
  }

  /** Starts a process in its own process group; its output goes to {@code <name>.<n>.log}. */
  public Proc start(String name, List<String> command, Map<String, String> env) {
    int n;
    synchronized (starts) {
      n = starts.merge(name, 1, Integer::sum);
    }
    Proc proc = Proc.start(name, command, env, dir.resolve(name + "." + n + ".log"));
    synchronized (procs) {
      procs.add(proc);
    }
    return proc;
  }

  /** Appends one line to a file, as the jobs do ({@code O_APPEND}, one write). */
  public static void append(Path file, String line) {
    try {
      Files.write(
          file,
          (line + "\n").getBytes(StandardCharsets.UTF_8),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code libfaketime.so.1}; fails under CI when it is missing, else skips the test. */
  public static Path faketime() {
    Optional<Path> found;
    try (Stream<Path> libs = Files.list(Path.of("/usr/lib"))) {
      found =
          libs.map(d -> d.resolve("faketime/libfaketime.so.1"))
              .filter(Files::isRegularFile)
              .findFirst();
    } catch (IOException e) {
      found = Optional.empty();
    }
    if (found.isEmpty()) {
      String message = "libfaketime is not installed; run: apt-get install faketime";
      if (ServerAvailability.inCi()) {
        Assertions.fail(message);
      }
      Assumptions.abort(message);
    }
    return found.get();
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
