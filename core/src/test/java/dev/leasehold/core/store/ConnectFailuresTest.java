package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The plain reasons, from exceptions shaped as the drivers throw them. */
class ConnectFailuresTest {
  private static final Duration FIVE = Duration.ofSeconds(5);

  @Test
  void aRefusedConnectionWrappedByADriver() {
    Exception e = new IllegalStateException("driver", new ConnectException("Connection refused"));
    assertThat(ConnectFailures.reason(e, FIVE)).isEqualTo("connection refused");
  }

  @Test
  void anUnknownHostWinsOverTheConnectExceptionThatWrapsIt() {
    ConnectException wrapper = new ConnectException();
    wrapper.initCause(new UnresolvedAddressException());
    assertThat(ConnectFailures.reason(wrapper, FIVE)).isEqualTo("unknown host");
    assertThat(ConnectFailures.reason(new UnknownHostException("db"), FIVE))
        .isEqualTo("unknown host");
  }

  @Test
  void aFailureKeptAsSuppressedIsFound() {
    IOException all = new IOException("cannot connect to any sentinel");
    all.addSuppressed(new IOException("s1", new ConnectException("Connection refused")));
    assertThat(ConnectFailures.reason(all, FIVE)).isEqualTo("connection refused");
  }

  @Test
  void timeoutsNameTheTimeout() {
    assertThat(ConnectFailures.reason(new SocketTimeoutException("Read timed out"), FIVE))
        .isEqualTo("timed out after 5s");
    assertThat(
            ConnectFailures.reason(
                new ConnectException("connection timed out: /10.0.0.1:6379"),
                Duration.ofMillis(250)))
        .isEqualTo("timed out after 250ms");
  }

  @Test
  void authenticationAndRoutes() {
    assertThat(
            ConnectFailures.reason(
                new IllegalStateException("WRONGPASS invalid username-password pair"), FIVE))
        .isEqualTo("authentication failed");
    assertThat(ConnectFailures.reason(new NoRouteToHostException("No route to host"), FIVE))
        .isEqualTo("no route to host");
  }

  @Test
  void anythingElseIsNoKnownReason() {
    assertThat(ConnectFailures.reason(new IllegalStateException("disk full"), FIVE)).isNull();
    assertThat(ConnectFailures.hostPort("::1", 6379)).isEqualTo("[::1]:6379");
    assertThat(ConnectFailures.hostPort("db", 3306)).isEqualTo("db:3306");
  }
}
