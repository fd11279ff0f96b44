package dev.leasehold.blackbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a one-shot command of the daemon jar ({@code history}, {@code status}) and returns stdout.
 */
final class Cli {
  private Cli() {}

  static String run(Path workDir, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar"));
    command.add(BlackBox.jar().toString());
    command.addAll(List.of(args));
    Path out = workDir.resolve("cli.out");
    Path err = workDir.resolve("cli.err");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("gave up after 120 s waiting for: " + command);
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(
            command + " exited " + p.exitValue() + ": " + Files.readString(err));
      }
      return Files.readString(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
