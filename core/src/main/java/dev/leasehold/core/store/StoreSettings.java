package dev.leasehold.core.store;

import dev.leasehold.core.lease.LeaseDefaults;
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
    commandTimeout = commandTimeout == null ? LeaseDefaults.COMMAND_TIMEOUT : commandTimeout;
  }

  public static StoreSettings of(String type, String url) {
    return new StoreSettings(type, url, List.of(), null, null, null, null, Map.of());
  }

  /**
   * What every store with user and password checks alike: both given or neither. The field named,
   * the password never repeated; null when there is no problem.
   */
  public String credentialsProblem() {
    String problem = usernameWithoutPasswordProblem();
    if (problem != null) {
      return problem;
    }
    if (password != null && username == null) {
      return "store.password: needs store.username as well";
    }
    return null;
  }

  /**
   * The half of {@link #credentialsProblem} for stores that also take a password alone (Redis with
   * {@code requirepass}): a user needs a password. Null when there is no problem.
   */
  public String usernameWithoutPasswordProblem() {
    if (username != null && password == null) {
      return "store.username: needs store.password as well";
    }
    return null;
  }

  /** Why {@code store.command-timeout} cannot be used, or null. */
  public String commandTimeoutProblem() {
    if (commandTimeout.isNegative() || commandTimeout.isZero()) {
      return "store.command-timeout: must be positive, got " + commandTimeout;
    }
    return null;
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
