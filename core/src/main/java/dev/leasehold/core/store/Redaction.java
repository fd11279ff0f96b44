package dev.leasehold.core.store;

import java.util.regex.Pattern;

/** Keeps secrets out of log lines: URLs are printed with their password replaced. */
public final class Redaction {
  private static final Pattern USERINFO_PASSWORD = Pattern.compile("(//[^/@:]*):[^/@]*@");
  private static final Pattern QUERY_PASSWORD =
      Pattern.compile("(?i)((?:password|pwd|pass)=)[^&;]*");

  private Redaction() {}

  /** {@code redis://user:secret@host} becomes {@code redis://user:***@host}. */
  public static String redactUrl(String url) {
    if (url == null) {
      return null;
    }
    String out = USERINFO_PASSWORD.matcher(url).replaceAll("$1:***@");
    return QUERY_PASSWORD.matcher(out).replaceAll("$1***");
  }
}
