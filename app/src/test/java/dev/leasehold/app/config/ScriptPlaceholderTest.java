package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.app.testing.CliHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@code ${VAR}} inside a shell script ({@code ["sh", "-c", "... ${VAR}"]}) becomes code; passed as
 * an environment variable it stays data. {@code validate} warns about the first form, not the
 * others, and a real run shows the difference with a value that holds {@code ;}.
 */
class ScriptPlaceholderTest {
  @TempDir Path dir;
  private final Logger logger = (Logger) LoggerFactory.getLogger(JobReader.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void listen() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(logged);
  }

  private Path config(String command, String extra) throws Exception {
    Path file = dir.resolve("jobs-" + System.nanoTime() + ".yaml");
    Files.writeString(
        file,
        "store:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("db")
            + "\njobs:\n  - name: deploy\n    every: 1h\n    command: "
            + command
            + "\n"
            + extra);
    return file;
  }

  private List<String> warnings() {
    return logged.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void aPlaceholderPastedIntoAShellScriptIsWarnedAboutWithTheSafeForm() throws Exception {
    CliHarness cli = new CliHarness().env("TARGET", "prod");
    Path unsafe = config("[\"sh\", \"-c\", \"deploy-to ${TARGET}\"]", "");

    CliHarness.Result result = cli.run("validate", "--config", unsafe.toString());

    assertThat(result.code()).isZero();
    assertThat(warnings())
        .singleElement()
        .asString()
        .contains("jobs[0].command[2]: ${TARGET} is pasted into the sh script as code")
        .contains("env: {TARGET: \"${TARGET}\"} and \"$TARGET\" in the script");
  }

  @Test
  void theSafeFormsAreNotWarnedAbout() throws Exception {
    CliHarness cli = new CliHarness().env("TARGET", "prod");
    for (Path safe :
        List.of(
            config(
                "[\"sh\", \"-c\", \"deploy-to \\\"$TARGET\\\"\"]",
                "    env:\n      TARGET: \"${TARGET}\"\n"),
            config("[\"sh\", \"-c\", \"deploy-to \\\"$1\\\"\", \"sh\", \"${TARGET}\"]", ""),
            config("[\"sh\", \"-c\", \"deploy-to \\\"$${TARGET}\\\"\"]", ""),
            config("[\"/usr/bin/deploy-to\", \"${TARGET}\"]", ""))) {
      assertThat(cli.run("validate", "--config", safe.toString()).code()).isZero();
    }
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aValueHoldingASemicolonRunsAsCodeOnlyInTheUnsafeForm() throws Exception {
    Path pwned = dir.resolve("pwned");
    CliHarness cli = new CliHarness().env("TARGET", "prod; touch " + pwned);

    Path safe =
        config(
            "[\"sh\", \"-c\", \"echo deploying to \\\"$TARGET\\\"\"]",
            "    env:\n      TARGET: \"${TARGET}\"\n");
    assertThat(cli.run("trigger", "deploy", "--here", "--config", safe.toString()).code()).isZero();
    assertThat(pwned).as("the safe form ran the value as data").doesNotExist();

    Path unsafe = config("[\"sh\", \"-c\", \"echo deploying to ${TARGET}\"]", "");
    assertThat(cli.run("trigger", "deploy", "--here", "--config", unsafe.toString()).code())
        .isZero();
    assertThat(pwned).as("the unsafe form ran the value as code").exists();
  }
}
