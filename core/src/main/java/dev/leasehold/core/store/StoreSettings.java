package dev.leasehold.core.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The store section of the configuration, as plain values (no framework types), handed to a {@link
 * StoreFactory}.
 *
 * @param type the store type name, e.g. {@code h2}, {@code postgres}, {@code redis}
 * @param url the connection URL for single-endpoint stores, or {@code null}
 * @param urls the endpoints of multi-node stores (Redlock), else empty
 * @param username optional user name, or {@code null}
 * @param password optional password, or {@code null}; never logged
 * @param keyPrefix prefix for keys/collections where the store supports one, or {@code null}
 * @param commandTimeout upper bound for one store round trip; the scheduler derives it from the
 *     renew interval so a hung call cannot outlive a lease
 * @param options further store-specific options (kebab-case keys)
 */
public record StoreSettings(
    String type,
    String url,
    List<String> urls,
    String username,
    String password,
    String keyPrefix,
    Duration commandTimeout,
    Map<String, String> options) {

  public StoreSettings {
    Objects.requireNonNull(type, "type");
    urls = urls == null ? List.of() : List.copyOf(urls);
    options = options == null ? Map.of() : Map.copyOf(options);
    commandTimeout = commandTimeout == null ? Duration.ofSeconds(5) : commandTimeout;
  }

  public static StoreSettings of(String type, String url) {
    return new StoreSettings(type, url, List.of(), null, null, null, null, Map.of());
  }

  @Override
  public String toString() {
    return "StoreSettings[type="
        + type
        + ", url="
        + Redaction.redactUrl(url)
        + ", urls="
        + urls.stream().map(Redaction::redactUrl).toList()
        + ", username="
        + username
        + ", password="
        + (password == null ? "null" : "***")
        + "]";
  }
}
