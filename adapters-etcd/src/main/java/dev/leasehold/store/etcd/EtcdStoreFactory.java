package dev.leasehold.store.etcd;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
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
  private static final String HISTORY_MAX = "history-max";

  @Override
  public Set<String> types() {
    return Set.of(ETCD);
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
    return settings.positiveWholeNumberOptionProblem(HISTORY_MAX);
  }

  /** {@code http(s)://host[:port]} and nothing else; the message never repeats a password. */
  private static String endpointProblem(String url) {
    if (url == null || url.isBlank()) {
      return "must not be blank";
    }
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      return "not a URL: " + dev.leasehold.core.store.Redaction.redactUrl(url);
    }
    String shown = dev.leasehold.core.store.Redaction.redactUrl(url);
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      return "expected http://host:2379 or https://host:2379, got " + shown;
    }
    if (uri.getHost() == null) {
      return "no host in " + shown;
    }
    if (uri.getUserInfo() != null) {
      return "put credentials in store.username and store.password, not in the URL";
    }
    if (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")
        || uri.getQuery() != null) {
      return "expected no path or query, got " + shown;
    }
    return null;
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
      URI uri = URI.create(url.trim());
      int port = uri.getPort() < 0 ? 2379 : uri.getPort();
      endpoints.add(URI.create(uri.getScheme() + "://" + uri.getHost() + ":" + port + "/"));
    }
    long maxPerJob =
        settings.positiveWholeNumberOption(HISTORY_MAX, EtcdExecutionLog.DEFAULT_MAX_PER_JOB);
    EtcdClient client =
        new EtcdClient(
            endpoints, settings.username(), settings.password(), settings.commandTimeout());
    return new EtcdStoreBackend(client, new EtcdKeys(settings.keyPrefix()), maxPerJob);
  }
}
