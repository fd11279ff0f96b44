package dev.leasehold.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A notification text with {@code {{name}}} placeholders, one of {@link #NAMES}. An unknown name is
 * refused when the file is read; a value is put in as it is, or escaped for the body it goes into
 * (JSON).
 */
public final class MessageTemplate {
  /** The names a template may use, in the order the docs list them. */
  public static final List<String> NAMES =
      List.of(
          "job",
          "event",
          "firing",
          "node",
          "fence",
          "outcome",
          "attempt",
          "exit_code",
          "detail",
          "output",
          "duration");

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([^{}]*?)\\s*}}");

  private final String text;

  private MessageTemplate(String text) {
    this.text = text;
  }

  /**
   * A template; an {@link IllegalArgumentException} naming the first unknown placeholder.
   *
   * @param text the template as written
   */
  public static MessageTemplate parse(String text) {
    List<String> unknown = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(text);
    while (m.find()) {
      if (!NAMES.contains(m.group(1))) {
        unknown.add(m.group(1));
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown placeholder {{"
              + unknown.get(0)
              + "}}; known: "
              + String.join(", ", NAMES.stream().map(n -> "{{" + n + "}}").toList()));
    }
    return new MessageTemplate(text);
  }

  /**
   * The text with each placeholder replaced by its value (absent: empty), escaped by {@code
   * escape}.
   */
  public String render(Map<String, String> values, UnaryOperator<String> escape) {
    Matcher m = PLACEHOLDER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = values.get(m.group(1));
      m.appendReplacement(out, Matcher.quoteReplacement(escape.apply(value == null ? "" : value)));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The template as written. */
  public String text() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MessageTemplate t && t.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
