package dev.leasehold.store.zookeeper;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreOption;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Opens {@code store.type: zookeeper}: {@code store.url: zk://host1:2181,host2:2181/chroot} (the
 * chroot is optional); {@code store.key-prefix} (default {@code leasehold}) is the node under the
 * chroot; {@code store.username}/{@code store.password} authenticate with the {@code digest}
 * scheme. Options: {@code session-timeout} (asked of the ensemble, default 30s; TTLs up to the
 * granted timeout get ephemeral lease nodes), {@code history-max} (records kept per job, default
 * 1000).
 */
public final class ZooKeeperStoreFactory implements StoreFactory {
  static final String ZOOKEEPER = "zookeeper";
  static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(30);
  private static final StoreOption<Duration> SESSION_TIMEOUT =
      StoreOption.duration(
          "session-timeout",
          Duration.ofMillis(100),
          Duration.ofMillis(Integer.MAX_VALUE),
          "100ms to 24d",
          DEFAULT_SESSION_TIMEOUT,
          "Session timeout asked of the ensemble; TTLs up to the granted one get ephemeral nodes.");
  private static final StoreOption<Long> HISTORY_MAX =
      StoreOption.positiveWholeNumber(
          "history-max", ZooKeeperExecutionLog.DEFAULT_MAX_PER_JOB, "Records kept per job.");
  private static final Pattern HOST =
      Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9.-]+)(:\\d{1,5})?");
  private static final Pattern CHROOT = Pattern.compile("(/[A-Za-z0-9._-]+)*");

  @Override
  public Set<String> types() {
    return Set.of(ZOOKEEPER);
  }

  @Override
  public List<StoreOption<?>> options() {
    return List.of(SESSION_TIMEOUT, HISTORY_MAX);
  }

  /**
   * ZooKeeper's client logs a WARN with a stack trace for every failed connection attempt (about
   * one a second while the ensemble is down); the store's own one-line error says the same.
   */
  @Override
  public Map<String, String> logLevels() {
    return Map.of("org.apache.zookeeper.ClientCnxn", "ERROR");
  }

  @Override
  public Set<String> driverPackages() {
    return Set.of("org.apache.zookeeper", "org.apache.curator");
  }

  @Override
  public String validate(StoreSettings settings) {
    if (!ZOOKEEPER.equals(settings.type())) {
      return "store.type: expected zookeeper, got " + settings.type();
    }
    String url = settings.url();
    if (url == null || url.isBlank()) {
      return "store.url: missing, e.g. zk://127.0.0.1:2181/leasehold";
    }
    if (!settings.urls().isEmpty()) {
      return "store.urls: list the ensemble's servers in store.url (zk://h1:2181,h2:2181/chroot)";
    }
    if (!url.startsWith("zk://")) {
      return "store.url: expected zk://host1:2181,host2:2181/chroot, got " + redact(url);
    }
    Url parsed = Url.parse(url);
    String hosts = parsed.hosts();
    String chroot = parsed.chroot();
    if (hosts.contains("@")) {
      return "store.url: put credentials in store.username and store.password, not in the URL";
    }
    if (hosts.isEmpty()) {
      return "store.url: no host in " + url;
    }
    for (String host : hosts.split(",", -1)) {
      if (!HOST.matcher(host).matches()) {
        return "store.url: bad host[:port] '" + host + "' in " + url;
      }
    }
    if (!CHROOT.matcher(chroot).matches()) {
      return "store.url: bad chroot '" + chroot + "' (segments of A-Z a-z 0-9 . _ -)";
    }
    if (settings.keyPrefix() != null && ZooKeeperPaths.problem(settings.keyPrefix()) != null) {
      return "store.key-prefix: " + ZooKeeperPaths.problem(settings.keyPrefix());
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

  /**
   * The parts of {@code zk://host1:2181,host2:2181/chroot}: the servers, and the chroot (empty, or
   * a path starting with a slash; a lone slash is none).
   */
  record Url(String hosts, String chroot) {
    static Url parse(String url) {
      String rest = url.substring("zk://".length());
      int slash = rest.indexOf('/');
      String chroot = slash < 0 ? "" : rest.substring(slash);
      return new Url(slash < 0 ? rest : rest.substring(0, slash), chroot.equals("/") ? "" : chroot);
    }
  }

  private static String redact(String url) {
    return dev.leasehold.core.store.Redaction.redactUrl(url);
  }

  @Override
  public StoreBackend open(StoreSettings settings) {
    String problem = validate(settings);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    Url url = Url.parse(settings.url());
    String hosts = url.hosts();
    String chroot = url.chroot();
    Duration sessionTimeout = SESSION_TIMEOUT.value(settings);
    long maxPerJob = HISTORY_MAX.value(settings);
    ZooKeeperSession session =
        new ZooKeeperSession(
            hosts,
            sessionTimeout,
            settings.commandTimeout(),
            settings.username(),
            settings.password(),
            "zk://" + hosts + chroot);
    return new ZooKeeperStoreBackend(
        session, new ZooKeeperPaths(chroot, settings.keyPrefix()), maxPerJob);
  }
}
