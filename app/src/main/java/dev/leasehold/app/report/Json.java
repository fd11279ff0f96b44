package dev.leasehold.app.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.leasehold.core.store.Redaction;
import java.io.IOException;

/**
 * JSON for the CLI and the admin endpoint: field order kept, nulls written as {@code null}. It is a
 * boundary where text leaves the process: every string value is scrubbed ({@link Redaction#scrub})
 * as it is written, on the raw value, before JSON escapes it.
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .registerModule(new SimpleModule("scrub").addSerializer(String.class, new Scrubbed()));

  private Json() {}

  /** A list of rows or one row ({@code Map}) as indented JSON. */
  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  private static final class Scrubbed extends StdSerializer<String> {
    Scrubbed() {
      super(String.class);
    }

    @Override
    public void serialize(String value, JsonGenerator json, SerializerProvider provider)
        throws IOException {
      json.writeString(Redaction.scrub(value));
    }
  }
}
