package dev.leasehold.app.cli;

import dev.leasehold.app.config.AdminConfig;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.report.StatusReport;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A daemon of the same file on this machine, asked through its admin endpoint for what {@code
 * status} would otherwise read from the store: answered that way, the command opens no store (for
 * SQL: no pool, no driver, no schema check), which is most of its start-up.
 *
 * <p>Asked only when the file has an {@code admin} section listening on a loopback or wildcard
 * address (reached on loopback, where reads need no token: no token leaves the process), and used
 * only when the answer carries the {@link StatusReport#identity identity} of the command's own file
 * (the same store, namespace and jobs) and, when the file has a token, the {@link
 * StatusReport#proof proof} of a random challenge keyed by that token: another program listening on
 * the port (the daemon being down) cannot make one, and the token never leaves the command.
 * Anything else (nothing listening, another program, a daemon of another file or one that has not
 * reloaded a changed file, an error, no answer within {@link #READ_TIMEOUT}) and the command reads
 * the store as always.
 */
final class LocalDaemon {
  static final Duration CONNECT_TIMEOUT = Duration.ofMillis(300);
  static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
  private static final int MAX_BODY = 4 * 1024 * 1024;

  private LocalDaemon() {}

  private static String challenge() {
    byte[] random = new byte[16];
    new java.security.SecureRandom().nextBytes(random);
    return java.util.HexFormat.of().formatHex(random);
  }

  /** What a daemon of {@code config}'s file answers to {@code GET /status}, or empty. */
  static Optional<String> status(DaemonConfig config, boolean json) {
    AdminConfig admin = config.admin();
    if (admin == null || admin.listen() == null || admin.listen().getPort() == 0) {
      return Optional.empty();
    }
    InetSocketAddress listen = admin.listen();
    InetAddress bound = listen.getAddress();
    if (bound != null && !bound.isAnyLocalAddress() && !bound.isLoopbackAddress()) {
      return Optional.empty(); // an interface of its own: a token would be needed, and none is sent
    }
    InetAddress loopback =
        bound != null && bound.isLoopbackAddress() ? bound : InetAddress.getLoopbackAddress();
    HttpURLConnection c = null;
    try {
      URL url =
          new URL(
              "http",
              loopback.getHostAddress(),
              listen.getPort(),
              "/status" + (json ? "?format=json" : ""));
      c = (HttpURLConnection) url.openConnection(Proxy.NO_PROXY);
      c.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
      c.setReadTimeout((int) READ_TIMEOUT.toMillis());
      c.setUseCaches(false);
      c.setInstanceFollowRedirects(false);
      String challenge = challenge();
      c.setRequestProperty(StatusReport.CHALLENGE_HEADER, challenge);
      if (c.getResponseCode() != 200
          || !StatusReport.identity(config)
              .equals(c.getHeaderField(StatusReport.IDENTITY_HEADER))) {
        return Optional.empty();
      }
      try (InputStream in = c.getInputStream()) {
        byte[] body = in.readNBytes(MAX_BODY);
        if (in.read() != -1) {
          return Optional.empty(); // larger than any status: not one
        }
        String text = new String(body, StandardCharsets.UTF_8);
        Optional<String> expected = StatusReport.proof(config, challenge, text);
        if (expected.isPresent()
            && !java.security.MessageDigest.isEqual(
                expected.get().getBytes(StandardCharsets.UTF_8),
                String.valueOf(c.getHeaderField(StatusReport.PROOF_HEADER))
                    .getBytes(StandardCharsets.UTF_8))) {
          return Optional.empty(); // not proven to hold this file's token: not trusted
        }
        return Optional.of(text);
      }
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } finally {
      if (c != null) {
        c.disconnect();
      }
    }
  }
}
