package dev.leasehold.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves {@code ${VAR}} and {@code ${VAR:-default}} in configuration values from the environment.
 * {@code $${...}} is left as the literal text {@code ${...}}, for a shell command that needs it. An
 * unset variable without a default is an error; a variable set to the empty string is used as it is
 * (as in POSIX shells, {@code :-} also replaces an empty value).
 */
public final class Placeholders {
  private static final Pattern PLACEHOLDER =
      Pattern.compile("\\$?\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");
  private static final Pattern BROKEN =
      Pattern.compile("(?<!\\$)\\$\\{(?![A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?})");

  private final Map<String, String> env;

  public Placeholders(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** The variables {@code text} refers to, in order; an escaped {@code $${...}} is not one. */
  static List<String> referenced(String text) {
    List<String> out = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(text);
    while (m.find()) {
      if (!m.group().startsWith("$$")) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * The text with every placeholder replaced.
   *
   * @throws IllegalArgumentException naming the variable that is unset or the malformed placeholder
   */
  public String resolve(String text) {
    if (text.indexOf("${") < 0) {
      return text;
    }
    Matcher broken = BROKEN.matcher(text);
    if (broken.find()) {
      // the value may be a secret: say where, never what
      throw new IllegalArgumentException(
          "malformed placeholder at character "
              + (broken.start() + 1)
              + " of the value; expected ${NAME} or ${NAME:-default}");
    }
    Matcher m = PLACEHOLDER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group().startsWith("$$")) {
        replacement = m.group().substring(1);
      } else {
        String value = env.get(m.group(1));
        String fallback = m.group(2);
        if (fallback != null && (value == null || value.isEmpty())) {
          value = fallback;
        }
        if (value == null) {
          throw new IllegalArgumentException(
              "environment variable "
                  + m.group(1)
                  + " is not set and ${"
                  + m.group(1)
                  + "} has no default (write ${"
                  + m.group(1)
                  + ":-default})");
        }
        replacement = value;
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }
}
