package dev.leasehold.app.config;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The admin HTTP endpoint.
 *
 * @param listen address to bind (loopback unless configured otherwise)
 * @param token bearer token required by state-changing requests and run output, or {@code null}:
 *     then triggering over HTTP is disabled
 * @param readToken bearer token that reads everything and changes nothing, or {@code null}
 * @param allowedHosts host names the endpoint answers to besides the loopback names and the listen
 *     address ({@code Host} header)
 */
public record AdminConfig(
    InetSocketAddress listen, String token, String readToken, List<String> allowedHosts) {
  /** The shortest token accepted at start: 16 characters resist guessing at any request rate. */
  public static final int MIN_TOKEN_LENGTH = 16;

  public AdminConfig {
    allowedHosts = List.copyOf(allowedHosts);
  }

  public AdminConfig(InetSocketAddress listen, String token, List<String> allowedHosts) {
    this(listen, token, null, allowedHosts);
  }

  /** Why {@code token} must not be used, or {@code null} when it may. */
  static String problem(String token) {
    if (token.length() < MIN_TOKEN_LENGTH) {
      return "too short to resist guessing ("
          + token.length()
          + " characters); use at least "
          + MIN_TOKEN_LENGTH
          + ", e.g. the output of: openssl rand -hex 16";
    }
    if (ShippedSecrets.isShipped(token)) {
      return "this is an example's token, known to everyone who read it; use your own, e.g. the"
          + " output of: openssl rand -hex 16";
    }
    return null;
  }

  @Override
  public String toString() {
    return "AdminConfig[listen="
        + listen
        + ", token="
        + (token == null ? "none" : "***")
        + ", readToken="
        + (readToken == null ? "none" : "***")
        + ", allowedHosts="
        + allowedHosts
        + "]";
  }
}
