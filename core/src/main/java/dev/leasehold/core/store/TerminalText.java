package dev.leasehold.core.store;

/**
 * Text bound for a terminal or a text log, made inert: a job's output, an HTTP answer or a pause
 * reason may hold escape sequences (an OSC 52 writes the reader's clipboard, others move the cursor
 * or retitle the window) or line breaks that forge a log line. Every control character but tab (C0,
 * DEL and C1) becomes visible text, {@code \x1b} for ESC; in a single-line field line breaks do too
 * ({@code \n}, {@code \r}). JSON needs none of this: it keeps the exact text, escaped by its
 * encoder.
 */
public final class TerminalText {
  private TerminalText() {}

  /** A single-line field: every control character but tab shown as {@code \xHH}, {@code \n}. */
  public static String line(String text) {
    return escape(text, false);
  }

  /** Several lines (a job's output): line feeds kept, every other control character shown. */
  public static String lines(String text) {
    return escape(text, true);
  }

  private static String escape(String text, boolean keepLineFeeds) {
    if (text == null) {
      return null;
    }
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f);
      if (control && keepLineFeeds && c == '\n') {
        control = false;
      }
      if (control && out == null) {
        out = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (out != null) {
        if (!control) {
          out.append(c);
        } else if (c == '\n') {
          out.append("\\n");
        } else if (c == '\r') {
          out.append("\\r");
        } else {
          out.append(String.format("\\x%02x", (int) c));
        }
      }
    }
    return out == null ? text : out.toString();
  }
}
