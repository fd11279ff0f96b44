package dev.leasehold.store.zookeeper;

import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
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
  private static final String HISTORY_MAX = "history-max";
  private static final String SESSION_TIMEOUT = "session-timeout";
  static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern HOST =
      Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9.-]+)(:\\d{1,5})?");
  private static final Pattern CHROOT = Pattern.compile("(/[A-Za-z0-9._-]+)*");

  @Override
  public Set<String> types() {
    return Set.of(ZOOKEEPER);
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
    String rest = url.substring("zk://".length());
    int slash = rest.indexOf('/');
    String hosts = slash < 0 ? rest : rest.substring(0, slash);
    String chroot = slash < 0 ? "" : rest.substring(slash);
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
    if (chroot.equals("/")) {
      chroot = "";
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
    String timeout = settings.options().get(SESSION_TIMEOUT);
    if (timeout != null) {
      try {
        Duration d = Durations.parse(timeout);
        if (d.toMillis() < 100 || d.toMillis() > Integer.MAX_VALUE) {
          return "store." + SESSION_TIMEOUT + ": expected 100ms to 24d, got " + timeout;
        }
      } catch (RuntimeException e) {
        return "store." + SESSION_TIMEOUT + ": expected a duration such as 30s, got " + timeout;
      }
    }
    return settings.positiveWholeNumberOptionProblem(HISTORY_MAX);
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
    String rest = settings.url().substring("zk://".length());
    int slash = rest.indexOf('/');
    String hosts = slash < 0 ? rest : rest.substring(0, slash);
    String chroot = slash < 0 || rest.substring(slash).equals("/") ? "" : rest.substring(slash);
    Duration sessionTimeout =
        settings.options().containsKey(SESSION_TIMEOUT)
            ? Durations.parse(settings.options().get(SESSION_TIMEOUT))
            : DEFAULT_SESSION_TIMEOUT;
    long maxPerJob =
        settings.positiveWholeNumberOption(HISTORY_MAX, ZooKeeperExecutionLog.DEFAULT_MAX_PER_JOB);
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
