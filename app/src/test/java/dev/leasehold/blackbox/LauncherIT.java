package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/leasehold}, the launcher the README starts with: it answers exactly as {@code java
 * -jar leasehold.jar} does, and the class-data archive the build made next to the jar is one the
 * JVM accepts (with {@code -Xshare:on} the JVM refuses to start on an archive it cannot use).
 */
class LauncherIT {
  private static final Path ROOT = BlackBox.jar().getParent().getParent().getParent();
  private static final Path LAUNCHER = ROOT.resolve("bin/leasehold");

  @TempDir Path dir;

  @Test
  void answersAsJavaJarDoes() throws Exception {
    for (List<String> args :
        List.of(
            List.of("validate", "--config", "examples/quickstart.yaml"),
            List.of("--version"),
            List.of("no-such-command"),
            List.of("validate", "--config", "examples/no-such-file.yaml"))) {
      Result launcher = run(Map.of(), launcher(args));
      Result jar = run(Map.of(), javaJar(args));
      assertThat(launcher).as("bin/leasehold %s", args).isEqualTo(jar);
    }
    assertThat(run(Map.of(), launcher(List.of("validate", "--config", "examples/quickstart.yaml"))))
        .extracting(Result::code, Result::out)
        .containsExactly(
            0,
            "examples/quickstart.yaml: OK, 3 jobs, node quickstart, store h2"
                + " jdbc:h2:file:./data/quickstart\n");
  }

  @Test
  void theBuildsClassDataArchiveIsUsable() throws Exception {
    assertThat(ROOT.resolve("app/target/leasehold.jsa")).exists();
    Result forced =
        run(Map.of("LEASEHOLD_JAVA_OPTS", "-Xshare:on"), launcher(List.of("--version")));
    assertThat(forced.code()).as("stderr: %s", forced.err()).isZero();
    assertThat(forced.out()).startsWith("leasehold ");
  }

  private static List<String> launcher(List<String> args) {
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(args);
    return command;
  }

  private static List<String> javaJar(List<String> args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                BlackBox.jar().toString()));
    command.addAll(args);
    return command;
  }

  private Result run(Map<String, String> env, List<String> command) throws Exception {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(ROOT.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    builder.environment().remove("LEASEHOLD_JAVA_OPTS");
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("gave up after 120 s waiting for: " + command);
    }
    return new Result(process.exitValue(), read(out), read(err));
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file);
  }

  record Result(int code, String out, String err) {}
}
