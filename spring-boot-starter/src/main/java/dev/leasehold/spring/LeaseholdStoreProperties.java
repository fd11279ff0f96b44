package dev.leasehold.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code leasehold.store.*}: the keys of the daemon's {@code store:} section, with the same meaning
 * and the same checks; a key it does not know stops the application at start-up. As environment
 * variables they are spelled the Spring way: {@code LEASEHOLD_STORE_URL}, {@code
 * LEASEHOLD_STORE_KEYPREFIX}, {@code LEASEHOLD_STORE_PASSWORDFILE}.
 */
@ConfigurationProperties(prefix = "leasehold.store", ignoreUnknownFields = false)
public class LeaseholdStoreProperties {
  /** Store type: h2, mysql, mariadb, postgres, redis, redlock, mongo, etcd, zookeeper. */
  private String type = "h2";

  /** The store's URL; default for h2: {@link dev.leasehold.core.lease.LeaseDefaults#H2_URL}. */
  private String url;

  /** The endpoints of a multi-node store (Redlock, etcd, ZooKeeper ensembles). */
  private List<String> urls = new ArrayList<>();

  /** User name, with password or password-file. */
  private String username;

  /** Password; never logged. Blank means not set. */
  private String password;

  /** A file holding the password (instead of password). */
  private String passwordFile;

  /** Prefix for keys or collections, where the store has them. */
  private String keyPrefix;

  /**
   * Upper bound of one store round trip; default 5s (keep it below a third of the shortest ttl).
   */
  private Duration commandTimeout;

  /** Further store-specific options (kebab-case keys), as the daemon's store.options. */
  private Map<String, String> options = new LinkedHashMap<>();

  public String getType() {
    return type;
  }

  public void setType(String type) {
    this.type = type;
  }

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public List<String> getUrls() {
    return urls;
  }

  public void setUrls(List<String> urls) {
    this.urls = urls;
  }

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public String getPasswordFile() {
    return passwordFile;
  }

  public void setPasswordFile(String passwordFile) {
    this.passwordFile = passwordFile;
  }

  public String getKeyPrefix() {
    return keyPrefix;
  }

  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  public Map<String, String> getOptions() {
    return options;
  }

  public void setOptions(Map<String, String> options) {
    this.options = options;
  }
}
