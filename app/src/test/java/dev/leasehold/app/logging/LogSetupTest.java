package dev.leasehold.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** The two log formats, as {@code run} sets them up. */
class LogSetupTest {
  private final PrintStream originalOut = System.out;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @AfterEach
  void restore() throws Exception {
    System.setOut(originalOut);
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig(); // back to logback-test.xml
  }

  private String logOneLine(boolean json) {
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LogSetup.configure(json, "INFO", false);
    Logger log = LoggerFactory.getLogger("leasehold.job");
    MDC.put("job", "morning-digest");
    try {
      log.atInfo()
          .addKeyValue("fence", 42L)
          .addKeyValue("outcome", "succeeded")
          .log("digest sent to {} people", 3);
      log.debug("not shown at INFO");
    } finally {
      MDC.remove("job");
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void textLinesCarryTimeLevelJobTagAndMessage() {
    String out = logOneLine(false);

    assertThat(out.lines())
        .singleElement()
        .asString()
        .matches(
            "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[morning-digest] digest sent to 3 people");
  }

  @Test
  void jsonLinesAreFlatObjectsWithTheFormattedMessageAndStructuredFields() {
    String out = logOneLine(true);

    assertThat(out.lines())
        .singleElement()
        .asString()
        .startsWith("{")
        .contains(
            "\"level\":\"INFO\"",
            "\"message\":\"digest sent to 3 people\"",
            "\"job\":\"morning-digest\"",
            "\"fence\":42",
            "\"outcome\":\"succeeded\"")
        .doesNotContain("sequenceNumber", "{}");
  }
}
