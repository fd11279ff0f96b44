package dev.leasehold.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.time.Clock;
import java.time.Instant;

/**
 * A console appender whose lines are in time order across threads. Logback stamps an event when it
 * is created and the console appender encodes it outside its write lock, so a thread that stamped
 * its line first can write it second. Here the stamp is taken again, and the line encoded and
 * written, all under the appender's one write lock: each line's time is when it was written, and no
 * line shows an earlier time than the one before it (unless the machine's wall clock is set back).
 */
public final class OrderedConsoleAppender extends ConsoleAppender<ILoggingEvent> {
  private final Clock clock;

  public OrderedConsoleAppender() {
    this(Clock.systemUTC());
  }

  OrderedConsoleAppender(Clock clock) {
    this.clock = clock;
  }

  @Override
  protected void subAppend(ILoggingEvent event) {
    streamWriteLock.lock();
    try {
      if (event instanceof LoggingEvent stamped) {
        Instant now = clock.instant();
        if (now.isAfter(stamped.getInstant())) {
          stamped.setInstant(now);
        }
      }
      super.subAppend(event);
    } finally {
      streamWriteLock.unlock();
    }
  }
}
