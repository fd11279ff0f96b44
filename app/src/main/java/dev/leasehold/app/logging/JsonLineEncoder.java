package dev.leasehold.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.slf4j.event.KeyValuePair;

/**
 * One flat JSON object per log event, for log pipelines: {@code time} (ISO-8601 UTC), {@code
 * level}, {@code logger}, {@code thread}, {@code message} (formatted, placeholders filled in), the
 * MDC entries (e.g. {@code job}) and the event's key-value pairs (e.g. {@code job}, {@code firing},
 * {@code node}, {@code fence}, {@code outcome} on execution lines) as top-level fields, and {@code
 * error} (class and message, no stack trace) when the event carries an exception. A field that
 * would clash with one of the fixed names is prefixed with {@code kv_}.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
  private static final JsonFactory JSON = new JsonFactory();
  private static final Set<String> FIXED =
      Set.of("time", "level", "logger", "thread", "message", "error");
  private static final byte[] NOTHING = new byte[0];

  @Override
  public byte[] headerBytes() {
    return NOTHING;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
      json.writeStringField("level", event.getLevel().toString());
      json.writeStringField("logger", event.getLoggerName());
      json.writeStringField("thread", event.getThreadName());
      json.writeStringField("message", event.getFormattedMessage());
      Map<String, String> mdc = event.getMDCPropertyMap();
      if (mdc != null) {
        for (Map.Entry<String, String> e : mdc.entrySet()) {
          json.writeStringField(field(e.getKey()), e.getValue());
        }
      }
      if (event.getKeyValuePairs() != null) {
        for (KeyValuePair kv : event.getKeyValuePairs()) {
          json.writeFieldName(field(kv.key));
          if (kv.value instanceof Number n && !(kv.value instanceof Double)) {
            json.writeNumber(n.longValue());
          } else if (kv.value == null) {
            json.writeNull();
          } else {
            json.writeString(String.valueOf(kv.value));
          }
        }
      }
      IThrowableProxy error = event.getThrowableProxy();
      if (error != null) {
        json.writeStringField("error", error.getClassName() + ": " + error.getMessage());
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.write('\n');
    return out.toByteArray();
  }

  private static String field(String key) {
    return FIXED.contains(key) ? "kv_" + key : key;
  }

  @Override
  public byte[] footerBytes() {
    return NOTHING;
  }
}
