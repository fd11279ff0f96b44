package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad configuration, through the real CLI entry point: {@code validate} and {@code run} both
 * exit 2 with the same single line on stderr naming the file and the field (or line), print no
 * stack trace, and start nothing (the H2 database the file points at is never created).
 */
class ConfigValidationTest {
  private static final String GOOD_JOB = "  - name: ok\n    every: 5s\n    command: [\"true\"]\n";

  @TempDir Path dir;

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        bad("unknown top-level key", "nodes: a\njobs:\n" + GOOD_JOB, "nodes", "unknown key"),
        bad(
            "unknown job key, with a hint",
            "jobs:\n  - name: a\n    crn: \"* * * * *\"\n    command: [\"true\"]\n",
            "jobs[0].crn",
            "did you mean 'cron'"),
        bad("wrong type: jobs is a mapping", "jobs:\n  a: 1\n", "jobs", "expected a list"),
        bad(
            "wrong type: ttl is a list",
            "jobs:\n  - name: a\n    every: 5s\n    ttl: [1, 2]\n    command: [\"true\"]\n",
            "jobs[0].ttl",
            "expected a single value"),
        bad(
            "wrong type: command is a string",
            "jobs:\n  - name: a\n    every: 5s\n    command: echo hi\n",
            "jobs[0].command",
            "expected a list"),
        bad(
            "wrong type: duration without unit",
            "jobs:\n  - name: a\n    every: 5\n    command: [\"true\"]\n",
            "jobs[0].every",
            "no unit"),
        bad(
            "invalid cron in the third job",
            "jobs:\n"
                + GOOD_JOB
                + "  - name: b\n    cron: \"0 6 * * *\"\n    command: [\"true\"]\n"
                + "  - name: c\n    cron: \"61 6 * * *\"\n    command: [\"true\"]\n",
            "jobs[2].cron",
            "invalid"),
        bad(
            "cron with the wrong number of fields",
            "jobs:\n  - name: a\n    cron: \"* * *\"\n    command: [\"true\"]\n",
            "jobs[0].cron",
            "fields"),
        bad(
            "unknown zone in a job",
            "jobs:\n  - name: a\n    cron: \"0 6 * * *\"\n    zone: Mars/Olympus\n    command: [\"true\"]\n",
            "jobs[0].zone",
            "unknown zone"),
        bad(
            "unknown default zone",
            "zone: Nowhere/City\njobs:\n" + GOOD_JOB,
            "zone",
            "unknown zone"),
        bad(
            "ttl of zero",
            "jobs:\n  - name: a\n    every: 5s\n    ttl: 0s\n    command: [\"true\"]\n",
            "jobs[0].ttl",
            "greater than 0"),
        bad(
            "lease ttl of zero",
            "lease:\n  ttl: 0ms\njobs:\n" + GOOD_JOB,
            "lease.ttl",
            "greater than 0"),
        bad(
            "renew-every not below ttl",
            "jobs:\n  - name: a\n    every: 5s\n    ttl: 10s\n    renew-every: 10s\n    command: [\"true\"]\n",
            "jobs[0].renew-every",
            "less than the ttl"),
        bad(
            "lease renew-every not below lease ttl",
            "lease:\n  ttl: 10s\n  renew-every: 20s\njobs:\n" + GOOD_JOB,
            "lease.renew-every",
            "less than the ttl"),
        bad(
            "zero interval",
            "jobs:\n  - name: a\n    every: 0s\n    command: [\"true\"]\n",
            "jobs[0].every",
            "greater than 0"),
        bad(
            "duplicate job name",
            "jobs:\n" + GOOD_JOB + GOOD_JOB,
            "jobs[1].name",
            "duplicate job name 'ok'"),
        bad(
            "invalid job name",
            "jobs:\n  - name: \"morning digest!\"\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[0].name",
            "invalid job name"),
        bad(
            "job name too long",
            "jobs:\n  - name: " + "x".repeat(101) + "\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[0].name",
            "at most 100"),
        bad(
            "no schedule",
            "jobs:\n  - name: a\n    command: [\"true\"]\n",
            "jobs[0]",
            "no schedule"),
        bad(
            "two schedules",
            "jobs:\n  - name: a\n    cron: \"0 6 * * *\"\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[0].every",
            "two schedules"),
        bad("no action", "jobs:\n  - name: a\n    every: 5s\n", "jobs[0]", "no action"),
        bad(
            "two actions",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n"
                + "    http: {url: \"http://127.0.0.1:1/\"}\n",
            "jobs[0].http",
            "two actions"),
        bad(
            "unset variable without default",
            "node: ${LEASEHOLD_TEST_SURELY_UNSET}\njobs:\n" + GOOD_JOB,
            "node",
            "LEASEHOLD_TEST_SURELY_UNSET is not set"),
        bad(
            "malformed store URL",
            "store:\n  type: h2\n  url: postgres://somewhere/db\njobs:\n" + GOOD_JOB,
            "store.url",
            "expects"),
        bad(
            "unknown store type",
            "store:\n  type: cassandra\n  url: x\njobs:\n" + GOOD_JOB,
            "store.type",
            "known: "),
        bad(
            "class that is not a job",
            "jobs:\n  - name: a\n    every: 5s\n    class: java.lang.String\n",
            "jobs[0].class",
            "does not implement"),
        bad(
            "class not on the classpath",
            "jobs:\n  - name: a\n    every: 5s\n    class: com.example.Missing\n",
            "jobs[0].class",
            "not found"),
        bad(
            "http url that is not http",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"ftp://x/y\"}\n",
            "jobs[0].http.url",
            "expected http"),
        bad(
            "env on an http job",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\"}\n    env: {A: b}\n",
            "jobs[0].env",
            "only applies to command jobs"),
        bad(
            "offset without every",
            "jobs:\n  - name: a\n    cron: \"0 6 * * *\"\n    offset: 1s\n    command: [\"true\"]\n",
            "jobs[0].offset",
            "only applies"),
        bad("no jobs", "node: a\n", "jobs", "at least one job"),
        bad("empty file", "", null, "the file is empty"),
        bad("only comments", "# nothing here\n", null, "the file is empty"),
        bad(
            "YAML syntax error",
            "jobs:\n  - name: a\n   every: 5s\n",
            "line 3",
            "YAML syntax error"),
        bad(
            "duplicate YAML key",
            "jobs:\n  - name: a\n    name: b\n    every: 5s\n    command: [\"true\"]\n",
            "line 3",
            "Duplicate field 'name'"),
        bad("top level is a list", "- a\n- b\n", null, "expected a mapping"));
  }

  private static Arguments bad(String title, String yaml, String where, String problem) {
    return Arguments.of(title, yaml, where, problem);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void aBadConfigurationExits2WithOneLineNamingTheField(
      String title, String yaml, String where, String problem) throws IOException {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(file, withIsolatedStore(yaml));
    for (String command : new String[] {"validate", "run"}) {
      CliHarness.Result result = new CliHarness().run(command, "--config", file.toString());

      assertThat(result.code()).as(command + " exit code").isEqualTo(2);
      assertThat(result.errLines()).as(command + " stderr").hasSize(1);
      String line = result.errLines().get(0);
      assertThat(line).startsWith(file + ": ").contains(problem).doesNotContain("Exception");
      if (where != null) {
        assertThat(line).startsWith(file + ": " + where);
      }
      assertThat(result.out()).isEmpty();
    }
    assertThat(dir.resolve("db")).as("nothing was started").doesNotExist();
  }

  @Test
  void aMissingFileExits2NamingTheFile() {
    Path file = dir.resolve("absent.yaml");
    for (String command : new String[] {"validate", "run", "status", "history"}) {
      CliHarness.Result result = new CliHarness().run(command, "--config", file.toString());
      assertThat(result.code()).isEqualTo(2);
      assertThat(result.errLines()).containsExactly(file + ": no such file");
    }
  }

  @Test
  void aGoodConfigurationValidatesWithoutTouchingTheStore() throws IOException {
    Path file = dir.resolve("good.yaml");
    Files.writeString(file, withIsolatedStore("jobs:\n" + GOOD_JOB));
    CliHarness.Result result = new CliHarness().run("validate", "--config", file.toString());
    assertThat(result.code()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).startsWith(file + ": OK, 1 job");
    assertThat(dir.resolve("db")).doesNotExist();
  }

  @Test
  void validateConnectReachesTheStore() throws IOException {
    Path file = dir.resolve("good.yaml");
    Files.writeString(file, withIsolatedStore("jobs:\n" + GOOD_JOB));
    CliHarness.Result result =
        new CliHarness().run("validate", "--connect", "--config", file.toString());
    assertThat(result.code()).isZero();
    assertThat(result.out()).contains("(answered), self-check passed");
    assertThat(dir.resolve("db")).exists();
  }

  /** Appends a store on an H2 file under the test's directory (line numbers stay) unless set. */
  private String withIsolatedStore(String yaml) {
    if (yaml.contains("store:") || yaml.isBlank() || yaml.startsWith("#") || yaml.startsWith("-")) {
      return yaml;
    }
    String url = "jdbc:h2:file:" + dir.resolve("db").resolve("leasehold");
    return yaml + "store:\n  type: h2\n  url: " + url + "\n";
  }
}
