package dev.leasehold.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user's first steps, as the docs write them: the shell blocks that README.md and
 * docs/java.md mark with {@code <!-- docs-run: NAME -->} are read from the markdown and run, line
 * by line, with bash, in a clean copy of the tree (the files git tracks; no {@code target/}, no
 * installed Leasehold jars). A command that exits non-zero fails the test with its output.
 *
 * <p>What the test adds to the commands, so that it does not touch the user's local repository:
 * {@code mvn} is a shim that runs the real {@code mvn} with a private local repository (a
 * hard-linked copy of the build's own, without {@code dev/leasehold}); it is not offline, since an
 * install needs plugins (the install plugin's own dependencies) that a {@code verify} never
 * resolved, and fetches them from the build's registry as a new user's build would. The last
 * command of a block starts a process that does not end by itself: it runs until it showed what the
 * docs promise, then gets SIGTERM. See docs/testing.md for what is run and what is reused.
 */
class DocumentedCommandsIT {
  private static final Path SOURCE =
      Path.of(System.getProperty("leasehold.source.tree", "..")).toAbsolutePath().normalize();
  private static final Path MAVEN_REPO =
      Path.of(
          System.getProperty(
              "leasehold.maven.repo", System.getProperty("user.home") + "/.m2/repository"));
  private static final Pattern MARK = Pattern.compile("^<!-- docs-run: ([a-z-]+) -->$");
  private static final Duration BUILD_LIMIT = Duration.ofMinutes(25);
  private static final Duration SERVER_LIMIT = Duration.ofMinutes(2);

  @TempDir Path work;

  /** The lines of the shell block under {@code <!-- docs-run: name -->} in {@code file}. */
  static List<String> block(Path file, String name) throws IOException {
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = MARK.matcher(lines.get(i).strip());
      if (!m.matches() || !m.group(1).equals(name)) {
        continue;
      }
      String fence = lines.get(i + 1);
      assertThat(fence).as("the line after the mark in %s", file).isIn("```sh", "```bash");
      List<String> commands = new ArrayList<>();
      StringBuilder command = new StringBuilder();
      for (int j = i + 2; !lines.get(j).startsWith("```"); j++) {
        String line = lines.get(j).replaceAll("(^|\\s+)#.*$", "").stripTrailing();
        if (line.endsWith("\\")) {
          command.append(line, 0, line.length() - 1).append(' ');
          continue;
        }
        command.append(line);
        if (!command.toString().isBlank()) {
          commands.add(command.toString().strip().replaceAll("\\s+", " "));
        }
        command.setLength(0);
      }
      return commands;
    }
    throw new AssertionError(file + " has no block marked <!-- docs-run: " + name + " -->");
  }

  @Test
  void theReadmeQuickstartAndTheJavaSampleRunAsTheDocsWriteThem() throws Exception {
    Path tree = copyOfTheTree();
    Map<String, String> env = Map.of("PATH", mavenShim() + ":" + System.getenv("PATH"));

    // docs/java.md: install this repository, build the Spring Boot sample, run it on MariaDB
    List<String> sample = block(SOURCE.resolve("docs/java.md"), "java-sample");
    assertThat(sample.get(0)).startsWith("mvn ").contains(" install");
    for (String command : sample.subList(0, sample.size() - 1)) {
      run(tree, env, command, BUILD_LIMIT).expectSuccess(List.of(command));
    }
    String server = sample.get(sample.size() - 1);
    Matcher ledger = Pattern.compile("\\bLEDGER=(\\S+)").matcher(server);
    assertThat(ledger.find()).as("the sample's command names its LEDGER: %s", server).isTrue();
    Path ledgerFile = tree.resolve(ledger.group(1));
    Files.deleteIfExists(ledgerFile);
    serve(
        tree,
        env,
        server,
        out -> Files.exists(ledgerFile) && !read(ledgerFile).isBlank(),
        "a firing in " + ledgerFile,
        List.of(0, 143)); // a Spring Boot application stopped by SIGTERM exits 143

    // README.md: "build, then run the daemon on embedded H2" until a job fired, then stop it
    List<String> quickstart = block(SOURCE.resolve("README.md"), "quickstart");
    assertThat(quickstart).hasSize(1);
    String[] parts = quickstart.get(0).split(" && ");
    assertThat(parts).hasSize(2);
    assertThat(parts[0])
        .as("the build the install above already ran (install runs every phase package runs)")
        .startsWith("mvn ")
        .contains(" package", "-DskipTests");
    assertThat(tree.resolve("app/target/leasehold.jar")).isRegularFile();
    serve(tree, env, parts[1], out -> out.contains(" fired at "), "a job fired", List.of(0));
  }

  /** The files git tracks, copied as they are in the working tree: what a clean clone holds. */
  private Path copyOfTheTree() throws IOException {
    Path tree = work.resolve("tree");
    Commands.Result files =
        Commands.run(
                List.of("git", "-C", SOURCE.toString(), "ls-files", "-z"), Duration.ofMinutes(1))
            .expectSuccess(List.of("git", "ls-files"));
    for (String name : files.output().split("\0")) {
      Path from = SOURCE.resolve(name);
      if (name.isEmpty() || !Files.isRegularFile(from)) {
        continue; // deleted in the working tree
      }
      Path to = tree.resolve(name);
      Files.createDirectories(to.getParent());
      Files.copy(from, to, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }
    return tree;
  }

  /** A directory with an {@code mvn} that runs the real one on a private local repository. */
  private Path mavenShim() throws IOException {
    Path repo = work.resolve("m2");
    Commands.Result linked =
        Commands.run(
            List.of("cp", "-al", MAVEN_REPO.toString(), repo.toString()), Duration.ofMinutes(5));
    if (linked.exit() != 0) { // another file system: copy
      Commands.run(List.of("rm", "-rf", repo.toString()), Duration.ofMinutes(5));
      Commands.run(List.of("cp", "-a", MAVEN_REPO.toString(), repo.toString()), BUILD_LIMIT)
          .expectSuccess(List.of("cp", "-a", MAVEN_REPO.toString()));
    }
    // no Leasehold jar from an earlier build: the install must make every one it needs
    Commands.run(List.of("rm", "-rf", repo.resolve("dev/leasehold").toString()), SERVER_LIMIT)
        .expectSuccess(List.of("rm", "dev/leasehold"));
    String mvn =
        Commands.run(List.of("bash", "-c", "command -v mvn"), Duration.ofSeconds(10))
            .expectSuccess(List.of("command -v mvn"))
            .output()
            .strip();
    Path bin = Files.createDirectories(work.resolve("bin"));
    Path shim = bin.resolve("mvn");
    Files.writeString(
        shim, "#!/bin/sh\nexec '" + mvn + "' -Dmaven.repo.local='" + repo + "' \"$@\"\n");
    shim.toFile().setExecutable(true);
    return bin;
  }

  private static Commands.Result run(
      Path tree, Map<String, String> env, String command, Duration limit) {
    return Commands.run(List.of("bash", "-ec", command), env, tree, limit);
  }

  /**
   * Starts {@code command} (bash runs a single command in its own process, so SIGTERM reaches it),
   * waits until {@code ready} holds for its output, stops it with SIGTERM and checks its exit.
   */
  private void serve(
      Path tree,
      Map<String, String> env,
      String command,
      Predicate<String> ready,
      String what,
      List<Integer> exits)
      throws Exception {
    Path out = work.resolve("server-" + System.nanoTime() + ".log");
    ProcessBuilder builder =
        new ProcessBuilder("bash", "-c", command)
            .directory(tree.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    try {
      long deadline = System.nanoTime() + SERVER_LIMIT.toNanos();
      while (process.isAlive() && !ready.test(read(out)) && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      assertThat(ready.test(read(out)))
          .as("'%s' shows %s; its output:%n%s", command, what, Commands.tail(read(out), 4000))
          .isTrue();
      process.destroy(); // SIGTERM
      assertThat(process.waitFor(SERVER_LIMIT.toSeconds(), TimeUnit.SECONDS))
          .as("'%s' stopped on SIGTERM", command)
          .isTrue();
      assertThat(process.exitValue())
          .as("exit of '%s'; its output:%n%s", command, Commands.tail(read(out), 4000))
          .isIn(exits);
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
