package dev.leasehold.app.config;

import java.net.InetSocketAddress;

/**
 * The admin HTTP endpoint.
 *
 * @param listen address to bind (loopback unless configured otherwise)
 * @param token bearer token required by state-changing requests, or {@code null}: then triggering
 *     over HTTP is disabled
 */
public record AdminConfig(InetSocketAddress listen, String token) {

  @Override
  public String toString() {
    return "AdminConfig[listen=" + listen + ", token=" + (token == null ? "none" : "***") + "]";
  }
}
