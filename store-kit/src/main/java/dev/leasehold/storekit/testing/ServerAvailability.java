package dev.leasehold.storekit.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * For tests that need a real server. Under {@code CI=true} an unreachable server fails the test;
 * elsewhere the test is skipped with a message that says how to start the server.
 */
public final class ServerAvailability {
  private ServerAvailability() {}

  public static boolean inCi() {
    String ci = System.getenv("CI");
    return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
  }

  /** Whether something accepts TCP connections on {@code host:port}. */
  public static boolean listening(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Fails (in CI) or skips (elsewhere) unless {@code host:port} accepts connections.
   *
   * @param what e.g. "MariaDB on 127.0.0.1:3306"
   * @param howToStart e.g. "run: bash .ci/services.sh"
   */
  public static void require(String what, String host, int port, String howToStart) {
    if (listening(host, port)) {
      return;
    }
    missing(what + " is not reachable; " + howToStart);
  }

  /** Fails (in CI) or skips (elsewhere) a test whose server or tool is missing. */
  public static void missing(String message) {
    if (inCi()) {
      Assertions.fail(message + " (CI=true: a missing server fails the build)");
    }
    Assumptions.abort(message);
  }
}
