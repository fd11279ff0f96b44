package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
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
        .extracting(Result::code, Result::out, Result::err)
        .containsExactly(
            0,
            "examples/quickstart.yaml: OK, 3 jobs, node quickstart, store h2"
                + " jdbc:h2:file:./data/quickstart\n",
            "");
  }

  @Test
  void theBuildsClassDataArchiveIsUsable() throws Exception {
    assertThat(ROOT.resolve("app/target/leasehold.jsa")).exists();
    Result forced =
        run(Map.of("LEASEHOLD_JAVA_OPTS", "-Xshare:on"), launcher(List.of("--version")));
    assertThat(forced.code()).as("stderr: %s", forced.err()).isZero();
    assertThat(forced.out()).startsWith("leasehold ");
  }

  @Test
  void oneShotCommandsMapTheArchiveWhereItWasMadeForUnlessTheOperatorAsksOtherwise()
      throws Exception {
    // the build probed this JDK: it accepts the option, so the key says so
    assertThat(Files.readAllLines(ROOT.resolve("app/target/leasehold.jsa.key")))
        .hasSize(2)
        .last()
        .isEqualTo("fixed-address");
    assertThat(cdsLog("", List.of("--version"), 0))
        .contains("Mapped static  region #0")
        .doesNotContain("alternative address");

    // the daemon leaves the JDK's placement: its start would pay more for the pages than it saves
    assertThat(cdsLog("", List.of("run", "--config", "examples/no-such-file.yaml"), 2))
        .contains("Mapped static  region #0")
        .contains("at an alternative address");

    // the operator's options come last and win: the JDK's own default, a random address
    assertThat(cdsLog(" -XX:ArchiveRelocationMode=1", List.of("--version"), 0))
        .contains("at an alternative address");
  }

  /** What {@code -Xlog:cds} says of a launch with these options added and these arguments. */
  private String cdsLog(String moreOptions, List<String> args, int code) throws Exception {
    Path log = Files.createTempFile(dir, "cds", ".txt");
    Result result =
        run(
            Map.of("LEASEHOLD_JAVA_OPTS", "-Xshare:on -Xlog:cds=info:file=" + log + moreOptions),
            launcher(args));
    assertThat(result.code()).as("%s, stderr: %s", args, result.err()).isEqualTo(code);
    return Files.readString(log);
  }

  @Test
  void theLauncherHandsTheArchiveToTheJvmForTheJarItWasMadeFromAndNotForACopy() throws Exception {
    Path log = dir.resolve("classes.txt");
    String options = "-Xshare:on -Xlog:class+load=info:file=" + log;
    Result inTree = run(Map.of("LEASEHOLD_JAVA_OPTS", options), launcher(List.of("--version")));
    assertThat(inTree.code()).as("stderr: %s", inTree.err()).isZero();
    assertThat(Files.readString(log))
        .as("Leasehold's own classes come from the build's archive")
        .contains("dev.leasehold.app.Main source: shared objects file")
        .contains("picocli.CommandLine source: shared objects file");

    // a copy of the jar (another path, another time) would make the JVM refuse the archive whole,
    // the JDK's classes included: the launcher must leave it out (-Xshare:on would not start with
    // it), so the JDK's own archive stays
    Path copy = dir.resolve("installed");
    Files.createDirectories(copy);
    for (String file : List.of("leasehold.jar", "leasehold.jsa", "leasehold.jsa.key")) {
      Files.copy(ROOT.resolve("app/target").resolve(file), copy.resolve(file));
    }
    // newer than the copied jar, as after an install: only the key can keep it out
    Files.setLastModifiedTime(
        copy.resolve("leasehold.jsa"), FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    Files.copy(LAUNCHER, copy.resolve("leasehold"), StandardCopyOption.COPY_ATTRIBUTES);
    Files.deleteIfExists(log);
    Result copied =
        run(
            Map.of("LEASEHOLD_JAVA_OPTS", options),
            List.of(copy.resolve("leasehold").toString(), "--version"));
    assertThat(copied.code()).as("stderr: %s", copied.err()).isZero();
    assertThat(copied.out()).startsWith("leasehold ");
    String classes = Files.readString(log);
    assertThat(classes)
        .contains("java.lang.Object source: shared objects file")
        .doesNotContain("dev.leasehold.app.Main source: shared objects file");
  }

  /**
   * The JDK 25 this machine has beside the default 17 (docs/performance.md measures both); {@code
   * LEASEHOLD_TEST_JDK25} names another. A machine without one fails this test: it is part of what
   * the launcher promises.
   */
  private static final Path JDK25 =
      Path.of(
          System.getenv()
              .getOrDefault("LEASEHOLD_TEST_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

  @Test
  void onJdk25TheLauncherMakesAnAheadOfTimeCacheAndStartsWithIt() throws Exception {
    assertThat(JDK25.resolve("bin/java")).as("a JDK 25 at %s", JDK25).isExecutable();
    Path installed = dir.resolve("lib");
    Files.createDirectories(installed);
    Files.copy(ROOT.resolve("app/target/leasehold.jar"), installed.resolve("leasehold.jar"));
    Files.copy(LAUNCHER, installed.resolve("leasehold"), StandardCopyOption.COPY_ATTRIBUTES);
    Map<String, String> jdk25 = Map.of("JAVA_HOME", JDK25.toString());
    String launcher = installed.resolve("leasehold").toString();

    Result made = run(jdk25, List.of(launcher, "--make-archive"));
    assertThat(made.code()).as("stderr: %s", made.err()).isZero();
    assertThat(installed.resolve("leasehold.aot")).isNotEmptyFile();
    assertThat(Files.readAllLines(installed.resolve("leasehold.aot.key")).get(0))
        .as("the cache's key names the jar and the JDK it was made for")
        .startsWith(installed.resolve("leasehold.jar").toRealPath() + " ")
        .contains(" " + JDK25.toRealPath() + " ");
    assertThat(installed.resolve("leasehold.jsa.key"))
        .as("the class-data archive's key (JDK 17's) is not written by the AOT training")
        .doesNotExist();

    Path log = dir.resolve("classes25.txt");
    Result started =
        run(
            Map.of(
                "JAVA_HOME",
                JDK25.toString(),
                "LEASEHOLD_JAVA_OPTS",
                "-XX:AOTMode=on -Xlog:class+load=info:file=" + log),
            List.of(launcher, "--version"));
    assertThat(started.code()).as("stderr: %s", started.err()).isZero();
    assertThat(started.out()).startsWith("leasehold ").contains("Java 25");
    assertThat(Files.readString(log))
        .as("Leasehold's own classes come from the AOT cache")
        .contains("dev.leasehold.app.Main source: shared objects file");

    // the default JDK (17) beside it: no AOT cache there, the launcher still answers
    // (no archive making in the background: the test's directory goes away when it ends)
    Result on17 = run(Map.of("LEASEHOLD_ARCHIVE", "off"), List.of(launcher, "--version"));
    assertThat(on17.code()).as("stderr: %s", on17.err()).isZero();
    assertThat(on17.out()).startsWith("leasehold ").doesNotContain("Java 25");
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
