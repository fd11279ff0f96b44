package dev.leasehold.store.redis.node;

import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreSettings;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads the store URLs through Lettuce's {@link RedisURI}: {@code redis://}, {@code rediss://}
 * (TLS), {@code user:password@} (ACL), a database number as the path, and {@code
 * redis-sentinel://host:port[,host:port...]/db#master}. Checks are done without I/O; messages show
 * URLs with the password redacted.
 */
public final class RedisUris {
  private static final String PLAIN = "expected redis://host:port[/db] or rediss://host:port[/db]";
  private static final String ANY =
      "expected redis://host:port[/db], rediss://host:port[/db] (TLS),"
          + " redis-sentinel://host:port[,host:port]/db#master"
          + " or redis-cluster://host:port[,host:port]";

  private RedisUris() {}

  /** Why {@code url} cannot be used for {@code field}, or null. */
  public static String problem(String field, String url, boolean sentinelAllowed) {
    String expected = sentinelAllowed ? ANY : PLAIN;
    if (url == null || url.isBlank()) {
      return field + ": missing; " + expected;
    }
    String lower = url.toLowerCase(Locale.ROOT);
    if (isCluster(url)) {
      return sentinelAllowed
          ? clusterProblem(field, url)
          : field + ": " + expected + ", got " + Redaction.redactUrl(url);
    }
    boolean sentinel =
        lower.startsWith("redis-sentinel://") || lower.startsWith("rediss-sentinel://");
    boolean plain = lower.startsWith("redis://") || lower.startsWith("rediss://");
    if (!plain && !(sentinel && sentinelAllowed)) {
      return field + ": " + expected + ", got " + Redaction.redactUrl(url);
    }
    if (sentinel && !url.contains("#")) {
      return field
          + ": a Sentinel URL names its master after '#', e.g. redis-sentinel://host:26379/0#mymaster";
    }
    RedisURI uri;
    try {
      uri = RedisURI.create(url);
    } catch (RuntimeException e) {
      return field + ": cannot read " + Redaction.redactUrl(url) + "; " + expected;
    }
    if (sentinel && (uri.getSentinelMasterId() == null || uri.getSentinelMasterId().isBlank())) {
      return field
          + ": a Sentinel URL names its master after '#', e.g. redis-sentinel://host:26379/0#mymaster";
    }
    if (!sentinel && (uri.getHost() == null || uri.getHost().isBlank())) {
      return field + ": missing host in " + Redaction.redactUrl(url);
    }
    return null;
  }

  /** {@code redis-cluster://} or {@code rediss-cluster://} (TLS): seeds of a Redis Cluster. */
  public static boolean isCluster(String url) {
    String lower = url == null ? "" : url.toLowerCase(Locale.ROOT);
    return lower.startsWith("redis-cluster://") || lower.startsWith("rediss-cluster://");
  }

  private static String clusterProblem(String field, String url) {
    String rest = url.substring(url.indexOf("://") + 3);
    String hosts = rest.substring(rest.lastIndexOf('@') + 1);
    int slash = hosts.indexOf('/');
    if (slash >= 0) {
      String db = hosts.substring(slash + 1);
      if (!db.isEmpty() && !db.equals("0")) {
        return field + ": a Redis Cluster has only database 0, got " + Redaction.redactUrl(url);
      }
      hosts = hosts.substring(0, slash);
    }
    if (hosts.contains("?") || hosts.contains("#")) {
      return field + ": a cluster URL takes no options: " + Redaction.redactUrl(url);
    }
    if (hosts.isBlank()) {
      return field + ": missing seed nodes in " + Redaction.redactUrl(url);
    }
    for (String hostPort : hosts.split(",")) {
      if (!hostPort.matches("[A-Za-z0-9._-]+(:[0-9]{1,5})?")) {
        return field
            + ": expected host:port seeds separated by commas, e.g."
            + " redis-cluster://10.0.0.1:6379,10.0.0.2:6379, got "
            + Redaction.redactUrl(url);
      }
    }
    return null;
  }

  /** The seed nodes of a cluster URL, each with the settings' credentials and timeout. */
  public static List<RedisURI> clusterSeeds(String url, StoreSettings settings) {
    boolean tls = url.toLowerCase(Locale.ROOT).startsWith("rediss-");
    String rest = url.substring(url.indexOf("://") + 3);
    int at = rest.lastIndexOf('@');
    String credentials = at < 0 ? "" : rest.substring(0, at + 1);
    String hosts = rest.substring(at + 1);
    if (hosts.indexOf('/') >= 0) {
      hosts = hosts.substring(0, hosts.indexOf('/'));
    }
    List<RedisURI> seeds = new java.util.ArrayList<>();
    for (String hostPort : hosts.split(",")) {
      seeds.add(parse((tls ? "rediss://" : "redis://") + credentials + hostPort, settings));
    }
    return seeds;
  }

  /** {@code cluster host:port,host:port}; never credentials. */
  public static String describeCluster(List<RedisURI> seeds) {
    return "cluster "
        + seeds.stream().map(s -> s.getHost() + ":" + s.getPort()).collect(Collectors.joining(","));
  }

  /** Why {@code urls} cannot form a Redlock quorum, or null: 3 or 5 distinct plain masters. */
  public static String quorumProblem(List<String> urls) {
    if (urls.size() != 3 && urls.size() != 5) {
      return "store.urls: Redlock needs 3 or 5 independent Redis masters, got " + urls.size();
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < urls.size(); i++) {
      String field = "store.urls[" + i + "]";
      String problem = problem(field, urls.get(i), false);
      if (problem != null) {
        return problem;
      }
      Integer earlier = seen.putIfAbsent(endpoint(urls.get(i)), i);
      if (earlier != null) {
        return field
            + ": same server as store.urls["
            + earlier
            + "] ("
            + endpoint(urls.get(i))
            + "); Redlock needs independent masters";
      }
    }
    return null;
  }

  /** The URI with the settings' credentials (they win over the URL's) and command timeout. */
  public static RedisURI parse(String url, StoreSettings settings) {
    RedisURI uri = RedisURI.create(url);
    if (settings.password() != null) {
      String user = settings.username();
      if (user == null
          && uri.getCredentialsProvider()
              instanceof RedisCredentialsProvider.ImmediateRedisCredentialsProvider fromUrl) {
        user = fromUrl.resolveCredentialsNow().getUsername();
      }
      uri.setCredentialsProvider(
          new StaticCredentialsProvider(user, settings.password().toCharArray()));
    }
    uri.setTimeout(settings.commandTimeout());
    return uri;
  }

  /** {@code host:port/db}, or the Sentinel master and its sentinels; never credentials. */
  public static String describe(RedisURI uri) {
    if (uri.getSentinelMasterId() != null) {
      return "master "
          + uri.getSentinelMasterId()
          + " via sentinels "
          + uri.getSentinels().stream()
              .map(s -> s.getHost() + ":" + s.getPort())
              .collect(Collectors.joining(","));
    }
    return uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
  }

  /** host:port, lower case: two URLs with the same endpoint are the same master. */
  static String endpoint(String url) {
    RedisURI uri = RedisURI.create(url);
    return uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
  }
}
