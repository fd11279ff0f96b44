package dev.leasehold.app.config;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The admin HTTP endpoint.
 *
 * @param listen address to bind (loopback unless configured otherwise)
 * @param token bearer token required by state-changing requests, or {@code null}: then triggering
 *     over HTTP is disabled
 * @param allowedHosts host names the endpoint answers to besides the loopback names and the listen
 *     address ({@code Host} header)
 */
public record AdminConfig(InetSocketAddress listen, String token, List<String> allowedHosts) {
  /** The shortest token accepted at start: 16 characters resist guessing at any request rate. */
  public static final int MIN_TOKEN_LENGTH = 16;

  public AdminConfig {
    allowedHosts = List.copyOf(allowedHosts);
  }

  @Override
  public String toString() {
    return "AdminConfig[listen="
        + listen
        + ", token="
        + (token == null ? "none" : "***")
        + ", allowedHosts="
        + allowedHosts
        + "]";
  }
}
