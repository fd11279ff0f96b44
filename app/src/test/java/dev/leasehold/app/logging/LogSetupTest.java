package dev.leasehold.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  void theEncoderIsBuiltAtTheFirstEventAndOnlyOnce() {
    java.util.concurrent.atomic.AtomicInteger built =
        new java.util.concurrent.atomic.AtomicInteger();
    LoggerContext context = new LoggerContext();
    PatternLayoutEncoder pattern = new PatternLayoutEncoder();
    pattern.setContext(context);
    pattern.setPattern("%msg%n");
    ScrubbingEncoder encoder =
        new ScrubbingEncoder(
            () -> {
              built.incrementAndGet();
              pattern.start();
              return pattern;
            });
    encoder.start();
    assertThat(encoder.headerBytes()).isEmpty();
    assertThat(built).hasValue(0);

    ch.qos.logback.classic.Logger logger = context.getLogger("leasehold.lazy");
    LoggingEvent event =
        new LoggingEvent(
            getClass().getName(),
            logger,
            ch.qos.logback.classic.Level.WARN,
            "store url jdbc:mariadb://lh:hunter2@db/x",
            null,
            null);
    assertThat(new String(encoder.encode(event), StandardCharsets.UTF_8))
        .doesNotContain("hunter2")
        .endsWith("\n");
    encoder.encode(event);
    assertThat(built).hasValue(1);
    encoder.stop();
    assertThat(pattern.isStarted()).isFalse();

    ScrubbingEncoder unused =
        new ScrubbingEncoder(
            () -> {
              built.incrementAndGet();
              return pattern;
            });
    unused.start();
    unused.stop();
    assertThat(built).as("stopped without an event: never built").hasValue(1);
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

  /**
   * Many threads logging at once: every line's time is no earlier than the line before it, in the
   * text format and in JSON. (With Logback's own console appender, which stamps an event before
   * taking the write lock, this sees lines out of order.)
   */
  @Test
  void linesOfManyThreadsComeOutInTimeOrder() throws Exception {
    for (boolean json : new boolean[] {false, true}) {
      captured.reset();
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      LogSetup.configure(json, "INFO", false);
      Logger log = LoggerFactory.getLogger("leasehold.order");
      int threads = 8;
      int lines = 3000;
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < lines; i++) {
                    log.info("thread {} line {}", thread, i);
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();

      List<String> out = captured.toString(StandardCharsets.UTF_8).lines().toList();
      assertThat(out).as("json=%s", json).hasSize(threads * lines);
      Instant previous = Instant.MIN;
      for (int n = 0; n < out.size(); n++) {
        Instant time = time(out.get(n), json);
        assertThat(time)
            .as("json=%s, line %d after %s: %s", json, n, previous, out.get(n))
            .isAfterOrEqualTo(previous);
        previous = time;
      }
    }
  }

  private static Instant time(String line, boolean json) {
    if (json) {
      Matcher m = Pattern.compile("\"time\":\"([^\"]+)\"").matcher(line);
      assertThat(m.find()).as(line).isTrue();
      return Instant.parse(m.group(1));
    }
    return LocalDateTime.parse(line.substring(0, 23).replace(' ', 'T'))
        .atZone(ZoneId.systemDefault())
        .toInstant();
  }
}
