package dev.leasehold.core.store;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Keeps secrets out of everything Leasehold prints: URLs are shown with their password and
 * credential-like query values replaced by {@code ***}, and any text can be {@link #scrub scrubbed}
 * of the secrets the configuration declared ({@link #register}), because drivers echo parts of a
 * URL or password in their own error messages.
 */
public final class Redaction {
  /**
   * User info in a URL: from {@code //user:} to the <b>last</b> {@code @} of the same
   * whitespace-free token, so a password may hold {@code / @ : # ? %}. Where a URL without user
   * info has an {@code @} later on, more than the password is hidden; never less.
   */
  private static final Pattern USERINFO_PASSWORD = Pattern.compile("(//[^\\s/@:]*):\\S*@");

  /** A credential-like query or property value: up to the next {@code &}, {@code ;} or space. */
  private static final Pattern QUERY_SECRET =
      Pattern.compile(
          "(?i)((?<![A-Za-z0-9_-])(?:password|passwd|pwd|pass|secret|client_secret|token"
              + "|access_token|auth"
              + "|api[_-]?key|apikey|key|signature|sig)=)[^&;\\s]*");

  /** A registered secret shorter than this is not searched for (it would garble every line). */
  private static final int MIN_WHOLE = 3;

  /** Parts of a registered secret shorter than this are not hidden on their own. */
  private static final int MIN_PIECE = 4;

  private static final Pattern URL_DELIMITERS = Pattern.compile("[/@:#?%&=;]");

  private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();

  /**
   * {@link #SECRETS} longest first, as {@link #scrub} replaces them: remade on registration only.
   */
  private static volatile List<String> longestFirst = List.of();

  private Redaction() {}

  /**
   * {@code redis://user:secret@host} becomes {@code redis://user:***@host}; {@code
   * ?password=secret} and {@code ?api_key=...} become {@code ?password=***}, {@code ?api_key=***}.
   */
  public static String redactUrl(String url) {
    if (url == null) {
      return null;
    }
    String out = QUERY_SECRET.matcher(url).replaceAll("$1***");
    return USERINFO_PASSWORD.matcher(out).replaceAll("$1:***@");
  }

  /**
   * Declares a secret (a password, a token) so that {@link #scrub} hides it wherever it shows up:
   * as written, URL-encoded and URL-decoded, and each part of it between URL delimiters ({@code / @
   * : # ? % & = ;}) that is at least {@value #MIN_PIECE} characters long, since a driver that
   * misparses a URL quotes such a part.
   */
  public static void register(String secret) {
    if (secret == null || secret.isEmpty()) {
      return;
    }
    if (secret.length() >= MIN_WHOLE) {
      SECRETS.add(secret);
    }
    add(URLEncoder.encode(secret, StandardCharsets.UTF_8));
    try {
      add(URLDecoder.decode(secret, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      // not valid %-encoding: nothing to decode
    }
    for (String piece : URL_DELIMITERS.split(secret)) {
      add(piece);
    }
    synchronized (Redaction.class) {
      longestFirst =
          SECRETS.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }
  }

  /** The registered secrets in user info or a query ({@code jdbc:...//u:pw@h/db?password=pw}). */
  public static void registerUrl(String url) {
    if (url == null) {
      return;
    }
    var userinfo = Pattern.compile("//[^\\s/@:]*:(\\S*)@").matcher(url);
    if (userinfo.find()) {
      register(userinfo.group(1));
    }
    var query = QUERY_SECRET.matcher(url);
    while (query.find()) {
      register(url.substring(query.end(1), query.end()));
    }
  }

  private static void add(String s) {
    if (s.length() >= MIN_PIECE) {
      SECRETS.add(s);
    }
  }

  /** {@code text} with URLs redacted and every registered secret replaced by {@code ***}. */
  public static String scrub(String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String secret : longestFirst) {
      out = out.replace(secret, "***");
    }
    return redactUrl(out);
  }
}
