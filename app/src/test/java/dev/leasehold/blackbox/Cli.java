package dev.leasehold.blackbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a one-shot command of the daemon jar ({@code history}, {@code status}) and returns stdout.
 */
final class Cli {
  private static final AtomicInteger CALLS = new AtomicInteger();

  private Cli() {}

  /** How a command ended: its exit code, stdout and stderr. */
  record Result(int code, String out, String err) {}

  static String run(Path workDir, String... args) {
    Result r = result(workDir, args);
    if (r.code() != 0) {
      throw new AssertionError(List.of(args) + " exited " + r.code() + ": " + r.err());
    }
    return r.out();
  }

  /** Runs a command whatever its exit code. */
  static Result result(Path workDir, String... args) {
    return result(workDir, java.util.Map.of(), args);
  }

  /** Runs a command with {@code env} added to this JVM's environment, whatever its exit code. */
  static Result result(Path workDir, java.util.Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(BlackBox.jvmOptions());
    command.add("-jar");
    command.add(BlackBox.jar().toString());
    command.addAll(List.of(args));
    // one pair of files per call: two scenarios of one test may run commands at once
    int n = CALLS.incrementAndGet();
    Path out = workDir.resolve("cli." + n + ".out");
    Path err = workDir.resolve("cli." + n + ".err");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().putAll(env);
      Process p = builder.start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("gave up after 120 s waiting for: " + command);
      }
      return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
