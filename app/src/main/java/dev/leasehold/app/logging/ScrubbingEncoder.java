package dev.leasehold.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.LoggerContextVO;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.TerminalText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;

/**
 * The log's boundary for secrets: every event is scrubbed ({@link Redaction#scrub}) <em>before</em>
 * it is encoded, on its raw values (the formatted message, key-value pairs, MDC values, exception
 * messages), so that a secret holding {@code "} or {@code \} is found before the text or JSON
 * encoder escapes it. Whatever library produced the text, URL passwords and every secret the
 * configuration declared are hidden.
 */
final class ScrubbingEncoder extends EncoderBase<ILoggingEvent> {
  private static final byte[] NOTHING = new byte[0];

  private final Supplier<Encoder<ILoggingEvent>> make;
  private final boolean text;
  private Encoder<ILoggingEvent> delegate;

  /**
   * @param make the started encoder that writes the scrubbed events, made at the first event: a
   *     command that logs nothing (most one-shot commands, at their warnings-only level) never
   *     builds a pattern layout or loads the time-zone rules. It must write no header and no footer
   *     (neither of Leasehold's encoders does), as this one writes none.
   */
  ScrubbingEncoder(Supplier<Encoder<ILoggingEvent>> make) {
    this(make, false);
  }

  /**
   * @param text for the text log: each message is also made inert for a terminal ({@link
   *     TerminalText#line}: no escape sequences, no line break that could forge a line); JSON lines
   *     keep the exact text, escaped by their encoder
   */
  ScrubbingEncoder(Supplier<Encoder<ILoggingEvent>> make, boolean text) {
    this.make = make;
    this.text = text;
  }

  private synchronized Encoder<ILoggingEvent> delegate() {
    if (delegate == null) {
      delegate = make.get();
    }
    return delegate;
  }

  @Override
  public byte[] headerBytes() {
    return NOTHING;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate().encode(new Scrubbed(event, text));
  }

  @Override
  public byte[] footerBytes() {
    return NOTHING;
  }

  @Override
  public void stop() {
    synchronized (this) {
      if (delegate != null) {
        delegate.stop();
      }
    }
    super.stop();
  }

  /** An event whose text is scrubbed; everything else is the original's. */
  private static final class Scrubbed implements ILoggingEvent {
    private final ILoggingEvent event;
    private final String message;

    Scrubbed(ILoggingEvent event, boolean text) {
      this.event = event;
      String scrubbed = Redaction.scrub(event.getFormattedMessage());
      this.message = text ? TerminalText.line(scrubbed) : scrubbed;
    }

    @Override
    public String getFormattedMessage() {
      return message;
    }

    @Override
    public String getMessage() {
      return message;
    }

    @Override
    public Object[] getArgumentArray() {
      return null;
    }

    @Override
    public List<KeyValuePair> getKeyValuePairs() {
      List<KeyValuePair> pairs = event.getKeyValuePairs();
      if (pairs == null) {
        return null;
      }
      return pairs.stream()
          .map(
              kv ->
                  kv.value instanceof Number || kv.value == null
                      ? kv
                      : new KeyValuePair(kv.key, Redaction.scrub(String.valueOf(kv.value))))
          .toList();
    }

    @Override
    public Map<String, String> getMDCPropertyMap() {
      Map<String, String> mdc = event.getMDCPropertyMap();
      if (mdc == null || mdc.isEmpty()) {
        return mdc;
      }
      Map<String, String> out = new LinkedHashMap<>();
      mdc.forEach((k, v) -> out.put(k, Redaction.scrub(v)));
      return out;
    }

    @Override
    @SuppressWarnings("deprecation")
    public Map<String, String> getMdc() {
      return getMDCPropertyMap();
    }

    @Override
    public IThrowableProxy getThrowableProxy() {
      IThrowableProxy error = event.getThrowableProxy();
      return error == null ? null : new ScrubbedThrowable(error);
    }

    @Override
    public String getThreadName() {
      return event.getThreadName();
    }

    @Override
    public Level getLevel() {
      return event.getLevel();
    }

    @Override
    public String getLoggerName() {
      return event.getLoggerName();
    }

    @Override
    public LoggerContextVO getLoggerContextVO() {
      return event.getLoggerContextVO();
    }

    @Override
    public StackTraceElement[] getCallerData() {
      return event.getCallerData();
    }

    @Override
    public boolean hasCallerData() {
      return event.hasCallerData();
    }

    @Override
    public List<Marker> getMarkerList() {
      return event.getMarkerList();
    }

    @Override
    public long getTimeStamp() {
      return event.getTimeStamp();
    }

    @Override
    public int getNanoseconds() {
      return event.getNanoseconds();
    }

    @Override
    public java.time.Instant getInstant() {
      return event.getInstant();
    }

    @Override
    public long getSequenceNumber() {
      return event.getSequenceNumber();
    }

    @Override
    public void prepareForDeferredProcessing() {
      event.prepareForDeferredProcessing();
    }
  }

  /** An exception whose messages (its own, its causes', the suppressed ones') are scrubbed. */
  private record ScrubbedThrowable(IThrowableProxy error) implements IThrowableProxy {
    @Override
    public String getMessage() {
      return Redaction.scrub(error.getMessage());
    }

    @Override
    public String getOverridingMessage() {
      return Redaction.scrub(error.getOverridingMessage());
    }

    @Override
    public String getClassName() {
      return error.getClassName();
    }

    @Override
    public StackTraceElementProxy[] getStackTraceElementProxyArray() {
      return error.getStackTraceElementProxyArray();
    }

    @Override
    public int getCommonFrames() {
      return error.getCommonFrames();
    }

    @Override
    public IThrowableProxy getCause() {
      return error.getCause() == null ? null : new ScrubbedThrowable(error.getCause());
    }

    @Override
    public IThrowableProxy[] getSuppressed() {
      IThrowableProxy[] suppressed = error.getSuppressed();
      if (suppressed == null) {
        return null;
      }
      IThrowableProxy[] out = new IThrowableProxy[suppressed.length];
      for (int i = 0; i < suppressed.length; i++) {
        out[i] = new ScrubbedThrowable(suppressed[i]);
      }
      return out;
    }

    @Override
    public boolean isCyclic() {
      return error.isCyclic();
    }
  }
}
