package dev.leasehold.app.audit;

import java.net.InetAddress;

/**
 * Who did an audited action. From the command line: the OS user, the host and the node name of the
 * configuration. Over HTTP: which token the request carried ({@link #ADMIN}, {@link #READ}, {@link
 * #WRONG} for one that matches neither, {@link #NONE} for none; never its value), the client's
 * address, and the node of the daemon that answered. From the daemon itself (a reload on SIGHUP):
 * the daemon's OS user, host and node.
 *
 * @param via {@link #CLI}, {@link #HTTP}, {@link #SIGNAL} or {@link #DAEMON}
 * @param user the OS user, or {@code null} over HTTP
 * @param host the host name, or {@code null} over HTTP
 * @param node the node name of the configuration (the CLI's or the answering daemon's)
 * @param token over HTTP the kind of token, else {@code null}
 * @param client over HTTP the client's address, else {@code null}
 */
public record Actor(
    String via, String user, String host, String node, String token, String client) {
  public static final String CLI = "cli";
  public static final String HTTP = "http";
  public static final String SIGNAL = "signal";
  public static final String DAEMON = "daemon";

  public static final String ADMIN = "admin";
  public static final String READ = "read";
  public static final String WRONG = "wrong";
  public static final String NONE = "none";

  /** Longest user, host, node or client kept. */
  static final int MAX_FIELD = 200;

  public Actor {
    if (via == null) {
      throw new IllegalArgumentException("via is required");
    }
    if (token != null
        && !token.equals(ADMIN)
        && !token.equals(READ)
        && !token.equals(WRONG)
        && !token.equals(NONE)) {
      // a token's value never reaches the trail, whatever a caller passes
      throw new IllegalArgumentException("token must be admin, read, wrong or none");
    }
    user = cut(user);
    host = cut(host);
    node = cut(node);
    client = cut(client);
  }

  /** This command line's user and host, for a configuration of node {@code node}. */
  public static Actor cli(String node) {
    return new Actor(CLI, osUser(), hostName(), node, null, null);
  }

  /** The daemon itself, on its own (the history prune forgetting a removed job's record). */
  public static Actor daemon(String node) {
    return new Actor(DAEMON, osUser(), hostName(), node, null, null);
  }

  /** The daemon itself, on a signal (SIGHUP's reload). */
  public static Actor signal(String node) {
    return new Actor(SIGNAL, osUser(), hostName(), node, null, null);
  }

  /**
   * A request to the admin endpoint of the daemon {@code node}.
   *
   * @param token {@link #ADMIN}, {@link #READ}, {@link #WRONG} or {@link #NONE}
   */
  public static Actor http(String token, InetAddress client, String node) {
    return new Actor(
        HTTP, null, null, node, token, client == null ? null : client.getHostAddress());
  }

  /** One line saying who: {@code alice@laptop (cli, node gw-1)}, {@code admin token from ...}. */
  public String describe() {
    StringBuilder out = new StringBuilder();
    if (HTTP.equals(via)) {
      out.append(NONE.equals(token) || token == null ? "no" : token).append(" token");
      if (client != null) {
        out.append(" from ").append(client);
      }
    } else {
      out.append(user == null ? "?" : user).append('@').append(host == null ? "?" : host);
    }
    out.append(" (").append(via);
    if (node != null) {
      out.append(", node ").append(node);
    }
    return out.append(')').toString();
  }

  static String osUser() {
    return System.getProperty("user.name", "unknown");
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "localhost";
    }
  }

  private static String cut(String text) {
    return text == null || text.length() <= MAX_FIELD ? text : text.substring(0, MAX_FIELD);
  }
}
