package dev.leasehold.app.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.StatusUtil;
import ch.qos.logback.core.util.StatusPrinter;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.Reporter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Logback for SLF4J, as Logback's own provider makes it, without the searches a start-up pays
 * before the first line: SLF4J's look through the class path for providers, and Logback's for
 * configurators, their ranks (read from annotations) and its version check. The entry points name
 * this class in the {@code slf4j.provider} system property ({@link #select}). Its first
 * configuration is {@link DefaultConfigurator}'s: warnings only, on stderr, in {@link LogSetup}'s
 * format; a class path that carries a Logback configuration of its own gets Logback's usual search
 * instead, which finds it.
 */
public final class LogProvider implements SLF4JServiceProvider {
  /** What SLF4J reads to pick its provider without searching the class path. */
  static final String PROPERTY = "slf4j.provider";

  private final LoggerContext context = new LoggerContext();
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final LogbackMDCAdapter mdc = new LogbackMDCAdapter();

  /**
   * Makes this the provider SLF4J uses, unless one was named already; also keeps SLF4J's own
   * informational line about the choice off stderr (its warnings and errors still show). Must run
   * before the first logger is asked for.
   */
  public static void select() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, LogProvider.class.getName());
      if (System.getProperty("slf4j.internal.verbosity") == null) {
        System.setProperty("slf4j.internal.verbosity", "WARN");
      }
    }
  }

  @Override
  public void initialize() {
    context.setName(CoreConstants.DEFAULT_CONTEXT_NAME);
    context.setMDCAdapter(mdc);
    if (DefaultConfigurator.carriesOwnConfiguration(LogProvider.class.getClassLoader())) {
      try {
        new ContextInitializer(context).autoConfig();
      } catch (JoranException e) {
        Reporter.error("Failed to auto configure default logger context", e);
      }
      // what Logback's own provider prints of a configuration that went wrong
      if (!StatusUtil.contextHasStatusListener(context)) {
        StatusPrinter.printInCaseOfErrorsOrWarnings(context);
      }
    } else {
      LogSetup.apply(context, false, "WARN", true);
    }
    context.start();
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return context;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }
}
