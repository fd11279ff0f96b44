package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.Poll;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every daemon command the README shows, run as written: from the fenced shell blocks and the
 * inline code spans, each {@code java -jar app/target/leasehold.jar ...} or {@code bin/leasehold
 * ...} command (with its {@code NAME=value} prefixes) is run in a scratch directory that sees the
 * repository's {@code examples/}, {@code app/} and {@code bin/}. A {@code run} must reach {@code
 * started:} and stop with exit 0 on SIGTERM; every other command must exit 0. The replicas example
 * needs the local MariaDB (as the README says).
 */
class ReadmeCommandsIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final Pattern INLINE = Pattern.compile("`([^`]+)`");
  private static final Pattern LAUNCH =
      Pattern.compile(
          "^((?:[A-Z_][A-Z0-9_]*=\\S*\\s+)*)(java -jar app/target/leasehold\\.jar|\\.?/?(?:app/target/)?bin/leasehold)\\s+(.*)$");

  @TempDir Path work;

  record Command(Map<String, String> env, String launcher, List<String> args, String text) {
    boolean isRun() {
      return args.get(0).equals("run");
    }
  }

  static List<Command> commands() throws IOException {
    Set<String> lines = new LinkedHashSet<>();
    boolean inShell = false;
    for (String line : Files.readAllLines(ROOT.resolve("README.md"))) {
      if (line.startsWith("```")) {
        inShell = !inShell && (line.equals("```bash") || line.equals("```sh"));
        continue;
      }
      if (inShell) {
        lines.add(line);
      } else {
        Matcher inline = INLINE.matcher(line);
        while (inline.find()) {
          lines.add(inline.group(1));
        }
      }
    }
    List<Command> out = new ArrayList<>();
    for (String line : lines) {
      String code = line.replaceAll("\\s+#.*$", "").strip();
      for (String part : code.split("&&")) {
        String command = part.strip();
        if (command.endsWith("&")) {
          command = command.substring(0, command.length() - 1).strip();
        }
        Matcher m = LAUNCH.matcher(command);
        if (!m.matches()) {
          continue;
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (String assignment : m.group(1).strip().split("\\s+")) {
          if (!assignment.isEmpty()) {
            int eq = assignment.indexOf('=');
            env.put(assignment.substring(0, eq), assignment.substring(eq + 1));
          }
        }
        out.add(new Command(env, m.group(2), List.of(m.group(3).strip().split("\\s+")), command));
      }
    }
    return out;
  }

  @Test
  void theReadmeShowsTheDaemonCommandsThisTestRuns() throws IOException {
    List<String> subcommands = commands().stream().map(c -> c.args().get(0)).distinct().toList();
    assertThat(subcommands).contains("run", "status", "history", "trigger");
  }

  @Test
  void everyDaemonCommandInTheReadmeWorksAsWritten() throws Exception {
    ServerAvailability.require(
        "MariaDB on 127.0.0.1:3306", "127.0.0.1", 3306, "start it with: bash .ci/services.sh");
    for (String dir : List.of("examples", "app", "bin")) {
      if (Files.exists(ROOT.resolve(dir))) {
        Files.createSymbolicLink(work.resolve(dir), ROOT.resolve(dir));
      }
    }
    Files.createDirectories(work.resolve("data"));
    List<Command> commands = new ArrayList<>(commands());
    // the runs first, so that status and history have something to show
    commands.sort((a, b) -> Boolean.compare(b.isRun(), a.isRun()));
    int n = 0;
    for (Command command : commands) {
      Path log = work.resolve("command-" + (++n) + ".log");
      List<String> argv = new ArrayList<>();
      if (command.launcher().startsWith("java")) {
        argv.add(ProcessHandle.current().info().command().orElse("java"));
        argv.add("-jar");
        argv.add("app/target/leasehold.jar");
      } else {
        argv.add(command.launcher().replaceFirst("^\\./", ""));
      }
      argv.addAll(command.args());
      ProcessBuilder builder =
          new ProcessBuilder(argv).directory(work.toFile()).redirectErrorStream(true);
      builder.redirectOutput(log.toFile());
      builder.environment().putAll(command.env());
      Process process = builder.start();
      if (command.isRun()) {
        Poll.until(
            "'" + command.text() + "' logs started:",
            LIMIT,
            () -> !process.isAlive() || read(log).contains("started:"));
        assertThat(read(log)).as(command.text()).contains("started:");
        process.destroy(); // SIGTERM: graceful
      }
      boolean ended = process.waitFor(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      if (!ended) {
        process.destroyForcibly();
      }
      assertThat(ended).as("'%s' ended; its output:%n%s", command.text(), read(log)).isTrue();
      assertThat(process.exitValue())
          .as("exit code of '%s'; its output:%n%s", command.text(), read(log))
          .isZero();
    }
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }
}
