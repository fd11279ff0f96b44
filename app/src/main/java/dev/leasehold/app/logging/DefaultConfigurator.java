package dev.leasehold.app.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's first configuration in the daemon: warnings only, on stderr, in {@link LogSetup}'s
 * format, set up directly instead of after Logback's search for configuration files and its
 * debug-level default, which cost a short command a noticeable part of its start-up. Found by
 * Logback through {@code META-INF/services/ch.qos.logback.classic.spi.Configurator}. A class path
 * that carries a Logback configuration ({@code logback.xml}, {@code logback-test.xml} or the {@code
 * logback.configurationFile} property) keeps it: this configurator then steps aside.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_LOW_PRIORITY)
public final class DefaultConfigurator extends ContextAwareBase implements Configurator {
  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (carriesOwnConfiguration(DefaultConfigurator.class.getClassLoader())) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    LogSetup.apply(context, false, "WARN", true);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Whether a Logback configuration was given: the property, or a file on the class path. */
  static boolean carriesOwnConfiguration(ClassLoader loader) {
    return System.getProperty("logback.configurationFile") != null
        || loader.getResource("logback-test.xml") != null
        || loader.getResource("logback.xml") != null;
  }
}
