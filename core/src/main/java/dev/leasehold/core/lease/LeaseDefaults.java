package dev.leasehold.core.lease;

import dev.leasehold.core.schedule.Durations;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The defaults every way of running Leasehold shares, each written once: the daemon's config keys
 * (and the docs' tables made from them), the Spring starter, the Guice and Spring annotations and
 * the store adapters all read them from here, so that they cannot drift apart.
 */
public final class LeaseDefaults {
  /**
   * The lease time to live when none is given, as written in config and in annotation attributes (a
   * compile-time constant, so that an annotation's {@code default} can name it).
   */
  public static final String TTL_TEXT = "30s";

  /** {@link #TTL_TEXT} as a duration. */
  public static final Duration TTL = Durations.parse(TTL_TEXT);

  /**
   * Without a renew interval of its own, a lease is renewed every {@code ttl / RENEWALS_PER_TTL}.
   */
  public static final int RENEWALS_PER_TTL = 3;

  /** The longest one store round trip may take, when no renew interval is shorter. */
  public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

  /** The store URL of type {@code h2} when none is given: a file beside the working directory. */
  public static final String H2_URL = "jdbc:h2:file:./data/leasehold";

  /** How the default node id is described to users: {@link #node(Map)}. */
  public static final String NODE_TEXT = "<hostname>-<pid>";

  private LeaseDefaults() {}

  /**
   * The renew interval of a lease of {@code ttl} that sets none: a third of it, at least 1ms, so
   * that two renewals may fail before the lease expires.
   */
  public static Duration renewEvery(Duration ttl) {
    return Duration.ofMillis(Math.max(1, ttl.toMillis() / RENEWALS_PER_TTL));
  }

  /**
   * The default node id, {@code hostname-pid}: unique per process, readable in status output. The
   * host name is {@code HOSTNAME} from {@code env}, else {@code /etc/hostname}, else the resolver's
   * name for this host; characters other than {@code [A-Za-z0-9._-]} become {@code _}.
   */
  public static String node(Map<String, String> env) {
    return hostname(env) + "-" + ProcessHandle.current().pid();
  }

  private static String hostname(Map<String, String> env) {
    String name = env.get("HOSTNAME");
    if (name == null || name.isBlank()) {
      try {
        name = Files.readString(Path.of("/etc/hostname")).strip();
      } catch (IOException | RuntimeException e) {
        name = null;
      }
    }
    if (name == null || name.isBlank()) {
      try {
        name = InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        name = "localhost";
      }
    }
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
