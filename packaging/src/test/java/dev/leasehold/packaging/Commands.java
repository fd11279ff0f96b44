package dev.leasehold.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the real tools the packaging tests drive (podman, systemd-analyze, mariadb, tar, sh). */
final class Commands {
  private Commands() {}

  /** A finished command: its exit code and its stdout and stderr, merged. */
  record Result(int exit, String output) {
    Result expectSuccess(List<String> command) {
      if (exit != 0) {
        throw new AssertionError(
            String.join(" ", command) + " exited " + exit + ":\n" + tail(output, 4000));
      }
      return this;
    }
  }

  static Result run(List<String> command, Duration timeout) {
    return run(command, Map.of(), null, timeout);
  }

  /** Runs to the end (killed after the timeout, which fails); output kept in a temporary file. */
  static Result run(List<String> command, Map<String, String> env, Path dir, Duration timeout) {
    Path out = null;
    try {
      out = Files.createTempFile("leasehold-packaging-", ".out");
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
      builder.environment().putAll(env);
      if (dir != null) {
        builder.directory(dir.toFile());
      }
      Process process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        throw new AssertionError(
            String.join(" ", command)
                + " did not end within "
                + timeout
                + ":\n"
                + tail(Files.readString(out, StandardCharsets.UTF_8), 4000));
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException ignored) {
          // a temporary file
        }
      }
    }
  }

  static Result mariadb(String sql) {
    return run(
            List.of("mariadb", "-h", "127.0.0.1", "-P", "3306", "-uroot", "-N", "-B", "-e", sql),
            Duration.ofSeconds(60))
        .expectSuccess(List.of("mariadb", "-e", sql));
  }

  static String tail(String text, int chars) {
    return text.length() <= chars ? text : "…" + text.substring(text.length() - chars);
  }

  static void deleteTree(Path dir) {
    if (dir != null && Files.exists(dir)) {
      run(List.of("rm", "-rf", dir.toString()), Duration.ofMinutes(1));
    }
  }
}
