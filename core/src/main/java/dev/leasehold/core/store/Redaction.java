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

  /**
   * User info without a colon ({@code redis://SECRET@host}): Redis clients take it as the password,
   * so it is hidden whole, for every scheme.
   */
  private static final Pattern USERINFO_ONLY = Pattern.compile("//[^\\s/@:]+@");

  /** Schemes whose colon-less user info is a password ({@code redis://SECRET@host:6379/0}). */
  private static final Pattern PASSWORD_ONLY_SCHEMES =
      Pattern.compile("(?i)^(redis|rediss|redis-sentinel|valkey|valkeys)://([^\\s/@:]+)@");

  /** A credential-like query or property value: up to the next {@code &}, {@code ;} or space. */
  private static final Pattern QUERY_SECRET =
      Pattern.compile(
          "(?i)((?<![A-Za-z0-9_.-])(?:[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token)"
              + "|pass|auth|api[_-]?key|apikey|key|signature|sig)=)[^&;\\s]*");

  /** A registered secret shorter than this is not searched for (it would garble every line). */
  private static final int MIN_WHOLE = 3;

  /** Parts of a registered secret at least this long are hidden wherever they appear. */
  private static final int MIN_PIECE = 4;

  /**
   * Parts of 2 or 3 characters are hidden only as a token of their own (between characters that are
   * neither letters nor digits), since hiding them everywhere would garble every line.
   */
  private static final int MIN_SHORT_PIECE = 2;

  private static final Set<String> SHORT_PIECES = ConcurrentHashMap.newKeySet();

  private static volatile Pattern shortPieces;

  private static final Pattern URL_DELIMITERS = Pattern.compile("[/@:#?%&=;]");

  private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();

  /** Each secret as registered (not its variants), for {@link #isSecret}. */
  private static final Set<String> WHOLE = ConcurrentHashMap.newKeySet();

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
    out = USERINFO_PASSWORD.matcher(out).replaceAll("$1:***@");
    return USERINFO_ONLY.matcher(out).replaceAll("//***@");
  }

  /**
   * Declares a secret (a password, a token) so that {@link #scrub} hides it wherever it shows up:
   * as written, URL-encoded and URL-decoded, escaped as in JSON or a quoted log field ({@code \"},
   * {@code \\}), and every run of its parts between URL delimiters ({@code / @ : # ? % & = ;}) that
   * is at least {@value #MIN_PIECE} characters long, since a driver that misparses a URL quotes
   * such a part. Shorter parts (2 or 3 characters) are hidden where they stand as a token of their
   * own.
   */
  public static void register(String secret) {
    if (secret == null || secret.isEmpty()) {
      return;
    }
    if (secret.length() >= MIN_WHOLE) {
      SECRETS.add(secret);
    }
    if (secret.length() >= MIN_PIECE) {
      WHOLE.add(secret.strip());
    }
    add(URLEncoder.encode(secret, StandardCharsets.UTF_8));
    try {
      add(URLDecoder.decode(secret, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      // not valid %-encoding: nothing to decode
    }
    add(escaped(secret));
    add(escaped(escaped(secret)));
    List<String> pieces = List.of(URL_DELIMITERS.split(secret, -1));
    int at = 0;
    List<Integer> starts = new java.util.ArrayList<>();
    for (String piece : pieces) {
      starts.add(at);
      at += piece.length() + 1;
    }
    // every run of consecutive parts, with the delimiters between them
    for (int i = 0; i < pieces.size(); i++) {
      for (int j = i; j < pieces.size(); j++) {
        String run = secret.substring(starts.get(i), starts.get(j) + pieces.get(j).length());
        add(run);
        add(escaped(run));
      }
      String piece = pieces.get(i);
      if (piece.length() >= MIN_SHORT_PIECE && piece.length() < MIN_PIECE) {
        SHORT_PIECES.add(piece);
      }
    }
    synchronized (Redaction.class) {
      longestFirst =
          SECRETS.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
      shortPieces =
          SHORT_PIECES.isEmpty()
              ? null
              : Pattern.compile(
                  "(?<![\\p{L}\\p{N}])(?:"
                      + SHORT_PIECES.stream()
                          .sorted(Comparator.comparingInt(String::length).reversed())
                          .map(Pattern::quote)
                          .collect(java.util.stream.Collectors.joining("|"))
                      + ")(?![\\p{L}\\p{N}])");
    }
  }

  /**
   * {@code s} with backslashes and double quotes escaped, as JSON and quoted log fields write it.
   */
  private static String escaped(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /**
   * Whether {@code value}, stripped, is a secret as registered (a token, a password, a credential
   * header's value): a variable holding one is not passed on to a job's or notifier's process.
   */
  public static boolean isSecret(String value) {
    return value != null && WHOLE.contains(value.strip());
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
    var passwordOnly = PASSWORD_ONLY_SCHEMES.matcher(url);
    if (passwordOnly.find()) {
      register(passwordOnly.group(2));
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
    Pattern shortOnes = shortPieces;
    if (shortOnes != null) {
      out = shortOnes.matcher(out).replaceAll("***");
    }
    return redactUrl(out);
  }
}
