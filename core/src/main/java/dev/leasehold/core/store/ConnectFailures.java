package dev.leasehold.core.store;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * Says in plain words why a connection could not be made, from the exception a driver threw and
 * whatever it wrapped: "connection refused", "unknown host", "timed out after 5s", "authentication
 * failed". Drivers word these differently (and some print their own internals); stores put this
 * reason after the host and port they tried, so every store reports a failed connection alike.
 */
public final class ConnectFailures {
  private ConnectFailures() {}

  /**
   * The plain reason for a failed connection, or {@code null} when the exception says none of the
   * known causes.
   *
   * @param timeout the connect timeout, for "timed out after ..."
   */
  public static String reason(Throwable failure, Duration timeout) {
    List<Throwable> chain = chain(failure);
    // the most telling first: a client may wrap an unknown host in a ConnectException
    for (Throwable t : chain) {
      String m = message(t);
      if (t instanceof UnknownHostException
          || t instanceof UnresolvedAddressException
          || m.contains("unknownhostexception")
          || m.contains("name or service not known")
          || m.contains("unknown host")
          || m.contains("nodename nor servname")) {
        return "unknown host";
      }
    }
    for (Throwable t : chain) {
      if (authentication(message(t))) {
        return "authentication failed";
      }
    }
    boolean timedOut = false;
    for (Throwable t : chain) {
      String m = message(t);
      if (m.contains("timed out") || m.contains("timeout")) {
        timedOut = true;
      } else if (t instanceof ConnectException || m.contains("connection refused")) {
        return "connection refused";
      } else if (t instanceof NoRouteToHostException || m.contains("no route to host")) {
        return "no route to host";
      }
      timedOut |= t instanceof SocketTimeoutException || t instanceof TimeoutException;
    }
    return timedOut ? timedOut(timeout) : null;
  }

  private static String message(Throwable t) {
    return t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
  }

  /**
   * {@code failure}, its causes and what was suppressed in any of them (a client that tried several
   * servers keeps each one's failure there), each once, at most 32.
   */
  private static List<Throwable> chain(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> out = new ArrayList<>();
    Deque<Throwable> todo = new ArrayDeque<>();
    if (failure != null) {
      todo.add(failure);
    }
    while (!todo.isEmpty() && out.size() < 32) {
      Throwable t = todo.poll();
      if (!seen.add(t)) {
        continue;
      }
      out.add(t);
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
      todo.addAll(Arrays.asList(t.getSuppressed()));
    }
    return out;
  }

  /** "timed out after 5s" (or "after 250ms" below a second). */
  public static String timedOut(Duration timeout) {
    if (timeout == null) {
      return "timed out";
    }
    long ms = timeout.toMillis();
    return "timed out after " + (ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms");
  }

  private static boolean authentication(String m) {
    return m.contains("authentication failed")
        || m.contains("access denied")
        || m.contains("wrongpass")
        || m.contains("noauth")
        || m.contains("invalid username-password")
        || m.contains("auth failed")
        || m.contains("not authorized")
        || m.contains("authfailed")
        || m.contains("authentication is required")
        || m.contains("invalid password");
  }

  /** {@code host:port} of {@code host} and {@code port}, IPv6 literals in brackets. */
  public static String hostPort(String host, int port) {
    String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return port > 0 ? h + ":" + port : h;
  }
}
