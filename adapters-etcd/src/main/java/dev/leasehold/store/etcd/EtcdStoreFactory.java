package dev.leasehold.store.etcd;

import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreOption;
import dev.leasehold.core.store.StoreSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Opens {@code store.type: etcd}: one endpoint in {@code store.url} or a cluster's members in
 * {@code store.urls} ({@code http://host:2379} or {@code https://...}); {@code store.username} and
 * {@code store.password} for etcd's authentication; {@code store.key-prefix} (default {@code
 * leasehold/}). Option {@code history-max}: records kept per job (default 1000).
 */
public final class EtcdStoreFactory implements StoreFactory {
  static final String ETCD = "etcd";
  private static final StoreOption<Long> HISTORY_MAX =
      StoreOption.positiveWholeNumber(
          "history-max", EtcdExecutionLog.DEFAULT_MAX_PER_JOB, "Records kept per job.");

  @Override
  public Set<String> types() {
    return Set.of(ETCD);
  }

  @Override
  public List<StoreOption<?>> options() {
    return List.of(HISTORY_MAX);
  }

  @Override
  public String validate(StoreSettings settings) {
    if (!ETCD.equals(settings.type())) {
      return "store.type: expected etcd, got " + settings.type();
    }
    boolean hasUrl = settings.url() != null && !settings.url().isBlank();
    if (hasUrl == !settings.urls().isEmpty()) {
      return hasUrl
          ? "store.urls: give either store.url (one endpoint) or store.urls (members), not both"
          : "store.url: missing (or store.urls for a cluster), e.g. http://127.0.0.1:2379";
    }
    if (hasUrl) {
      String problem = endpointProblem(settings.url());
      if (problem != null) {
        return "store.url: " + problem;
      }
    }
    for (int i = 0; i < settings.urls().size(); i++) {
      String problem = endpointProblem(settings.urls().get(i));
      if (problem != null) {
        return "store.urls[" + i + "]: " + problem;
      }
    }
    if (settings.keyPrefix() != null && EtcdKeys.problem(settings.keyPrefix()) != null) {
      return "store.key-prefix: " + EtcdKeys.problem(settings.keyPrefix());
    }
    String common = settings.credentialsProblem();
    if (common == null) {
      common = settings.commandTimeoutProblem();
    }
    if (common != null) {
      return common;
    }
    return StoreOption.problem(options(), settings);
  }

  /** {@code http(s)://host[:port]} and nothing else; the message never repeats a password. */
  private static String endpointProblem(String url) {
    try {
      endpoint(url);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /**
   * The member at {@code url} as {@code scheme://host:port/} (port 2379 when none is given); a URL
   * that is not {@code http(s)://host[:port]} throws, with a message that never repeats a password.
   */
  static URI endpoint(String url) {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("must not be blank");
    }
    String shown = Redaction.redactUrl(url);
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URL: " + shown);
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException(
          "expected http://host:2379 or https://host:2379, got " + shown);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("no host in " + shown);
    }
    if (uri.getUserInfo() != null) {
      throw new IllegalArgumentException(
          "put credentials in store.username and store.password, not in the URL");
    }
    if (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")
        || uri.getQuery() != null) {
      throw new IllegalArgumentException("expected no path or query, got " + shown);
    }
    int port = uri.getPort() < 0 ? 2379 : uri.getPort();
    return URI.create(uri.getScheme() + "://" + uri.getHost() + ":" + port + "/");
  }

  @Override
  public StoreBackend open(StoreSettings settings) {
    String problem = validate(settings);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    List<URI> endpoints = new ArrayList<>();
    for (String url :
        settings.url() != null && !settings.url().isBlank()
            ? List.of(settings.url())
            : settings.urls()) {
      endpoints.add(endpoint(url));
    }
    long maxPerJob = HISTORY_MAX.value(settings);
    EtcdClient client =
        new EtcdClient(
            endpoints, settings.username(), settings.password(), settings.commandTimeout());
    return new EtcdStoreBackend(client, new EtcdKeys(settings.keyPrefix()), maxPerJob);
  }
}
