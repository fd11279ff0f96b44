package dev.leasehold.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import dev.leasehold.app.config.StoreCatalog;
import org.slf4j.LoggerFactory;

/**
 * Configures Logback in code, so the daemon jar carries no {@code logback.xml} that could override
 * an embedding application's. Readable lines by default (time, level, job tag, message); flat JSON
 * lines through {@link JsonLineEncoder} (formatted message plus structured fields) when {@code
 * log.format: json} or {@code LEASEHOLD_LOG_FORMAT=json}.
 */
public final class LogSetup {
  /** Time, level, the job tag (MDC {@code job}, else {@code leasehold}), message. */
  public static final String PATTERN =
      "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%X{job:-leasehold}] %msg%n";

  /** Where the context keeps the settings {@link #apply} last set (reset() clears it). */
  private static final String SETTINGS = "dev.leasehold.logSettings";

  private LogSetup() {}

  /**
   * @param json JSON lines instead of the readable pattern
   * @param level root level name
   * @param toStderr log to stderr (commands whose stdout is their answer) instead of stdout
   */
  public static void configure(boolean json, String level, boolean toStderr) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    // the one-shot commands ask for what the first configuration already set: keep it
    String wanted = settings(json, level, toStderr);
    if (wanted.equals(context.getObject(SETTINGS))
        && context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("console") != null) {
      return;
    }
    context.reset();
    apply(context, json, level, toStderr);
  }

  /**
   * Starts Logback as the entry points need it before a command sets its own level and format:
   * warnings only, on stderr ({@link DefaultConfigurator}, through {@link LogProvider} when the
   * entry point selected it; unless the class path carries a Logback configuration of its own).
   */
  public static void start() {
    LoggerFactory.getILoggerFactory();
  }

  private static String settings(boolean json, String level, boolean toStderr) {
    return json + " " + Level.toLevel(level, Level.INFO) + " " + toStderr;
  }

  /** The console appender and levels, on a context that has nothing configured. */
  static void apply(LoggerContext context, boolean json, String level, boolean toStderr) {
    context.putObject(SETTINGS, settings(json, level, toStderr));
    // one synchronous appender that stamps, encodes and writes each line under one lock: lines of
    // different threads come out in time order
    ConsoleAppender<ILoggingEvent> console = new OrderedConsoleAppender();
    console.setContext(context);
    console.setName("console");
    console.setTarget(toStderr ? "System.err" : "System.out");
    ScrubbingEncoder scrubbing = new ScrubbingEncoder(() -> encoder(context, json), !json);
    scrubbing.setContext(context);
    scrubbing.start();
    console.setEncoder(scrubbing);
    console.start();

    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(level, Level.INFO));
    root.addAppender(console);
    // the stores' drivers, at the levels each store asks for (libraries chatty at INFO: their
    // warnings still show)
    StoreCatalog.discovered()
        .logLevels()
        .forEach((logger, wanted) -> context.getLogger(logger).setLevel(Level.toLevel(wanted)));
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, boolean json) {
    if (json) {
      JsonLineEncoder encoder = new JsonLineEncoder();
      encoder.setContext(context);
      encoder.start();
      return encoder;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    return encoder;
  }
}
