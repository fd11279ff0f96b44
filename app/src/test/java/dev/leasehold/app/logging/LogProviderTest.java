package dev.leasehold.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.ConsoleAppender;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/** The daemon's SLF4J provider: Logback, configured without Logback's searches. */
class LogProviderTest {
  @Test
  void aClassPathWithALogbackConfigurationKeepsIt() {
    // the test class path carries logback-test.xml: Logback's own search must find it
    LogProvider provider = new LogProvider();
    provider.initialize();
    LoggerContext context = (LoggerContext) provider.getLoggerFactory();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.INFO);
    assertThat(root.getAppender("console")).isInstanceOf(ConsoleAppender.class);
    assertThat(root.getAppender("console")).isNotInstanceOf(OrderedConsoleAppender.class);
    assertThat(context.getLogger("org.flywaydb").getLevel()).isEqualTo(Level.WARN);
    context.stop();
  }

  @Test
  void withoutOneTheFirstConfigurationIsWarningsOnStderrInLeaseholdsFormat() {
    try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
      assertThat(DefaultConfigurator.carriesOwnConfiguration(empty)).isFalse();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(DefaultConfigurator.carriesOwnConfiguration(getClass().getClassLoader())).isTrue();

    LoggerContext context = new LoggerContext();
    LogSetup.apply(context, false, "WARN", true);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.WARN);
    assertThat(root.getAppender("console"))
        .isInstanceOfSatisfying(
            OrderedConsoleAppender.class,
            console -> assertThat(console.getTarget()).isEqualTo("System.err"));
  }

  @Test
  void itsMdcIsTheContextsAndItNamesItselfOnlyWhenNobodyNamedAProvider() {
    LogProvider provider = new LogProvider();
    provider.initialize();
    LoggerContext context = (LoggerContext) provider.getLoggerFactory();
    assertThat(context.getMDCAdapter()).isSameAs(provider.getMDCAdapter());
    provider.getMDCAdapter().put("job", "backup");
    assertThat(provider.getMDCAdapter().get("job")).isEqualTo("backup");
    provider.getMDCAdapter().clear();
    assertThat(provider.getMarkerFactory().getMarker("x").getName()).isEqualTo("x");
    context.stop();

    String before = System.getProperty(LogProvider.PROPERTY);
    String verbosity = System.getProperty("slf4j.internal.verbosity");
    try {
      System.setProperty(LogProvider.PROPERTY, "org.example.TheirProvider");
      LogProvider.select();
      assertThat(System.getProperty(LogProvider.PROPERTY)).isEqualTo("org.example.TheirProvider");
      System.clearProperty(LogProvider.PROPERTY);
      LogProvider.select();
      assertThat(System.getProperty(LogProvider.PROPERTY)).isEqualTo(LogProvider.class.getName());
    } finally {
      restore(LogProvider.PROPERTY, before);
      restore("slf4j.internal.verbosity", verbosity);
    }
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }
}
