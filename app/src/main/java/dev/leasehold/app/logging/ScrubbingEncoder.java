package dev.leasehold.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import dev.leasehold.core.store.Redaction;
import java.nio.charset.StandardCharsets;

/**
 * The last line of defence for secrets in the log: every encoded line (message, stack trace, job
 * output, JSON or text) goes through {@link Redaction#scrub}, which hides URL passwords and every
 * secret the configuration declared, whatever library produced the text.
 */
final class ScrubbingEncoder extends EncoderBase<ILoggingEvent> {
  private final Encoder<ILoggingEvent> delegate;

  ScrubbingEncoder(Encoder<ILoggingEvent> delegate) {
    this.delegate = delegate;
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    byte[] raw = delegate.encode(event);
    String text = new String(raw, StandardCharsets.UTF_8);
    String clean = Redaction.scrub(text);
    return clean.equals(text) ? raw : clean.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }

  @Override
  public void stop() {
    delegate.stop();
    super.stop();
  }
}
