package dev.leasehold.app.config;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every key of the configuration file, once: its section, kind, default and meaning. The loader
 * allows exactly these keys ({@link #names}) and {@link ConfigSchema} derives the published JSON
 * Schema from them, so the validator and the schema cannot drift apart.
 */
final class ConfigKeys {
  private ConfigKeys() {}

  /** How a value is written in YAML. */
  enum Kind {
    /** A scalar read as text. */
    TEXT,
    /** A duration such as {@code 30s}, {@code 1h30m}. */
    DURATION,
    /** A list of text values. */
    TEXT_LIST,
    /** A mapping of text to text. */
    TEXT_MAP,
    /** A nested mapping. */
    SECTION,
    /** A list of mappings. */
    SECTION_LIST
  }

  /**
   * One key.
   *
   * @param values the allowed values (case-insensitive) for an enumerated text, else empty
   */
  record Key(String name, Kind kind, String defaultValue, String description, List<String> values) {
    static Key of(String name, Kind kind, String defaultValue, String description) {
      return new Key(name, kind, defaultValue, description, List.of());
    }
  }

  static final List<Key> TOP =
      List.of(
          Key.of(
              "node",
              Kind.TEXT,
              "<hostname>-<pid>",
              "This replica's name (1-200 characters): the lease holder, LEASEHOLD_NODE for jobs,"
                  + " the node of each history record. Give each replica its own."),
          Key.of(
              "zone",
              Kind.TEXT,
              "UTC",
              "Default IANA time zone of cron and at schedules, e.g. Asia/Shanghai."),
          Key.of(
              "shutdown-grace",
              Kind.DURATION,
              "30s",
              "On SIGTERM/SIGINT: how long running jobs may finish before they are stopped."),
          Key.of("store", Kind.SECTION, "H2 file", "Where leases and history live."),
          Key.of("lease", Kind.SECTION, null, "Defaults for every job's lease."),
          Key.of("admin", Kind.SECTION, "off", "The admin HTTP endpoint (status page, metrics)."),
          Key.of("log", Kind.SECTION, "text, INFO", "Log format and level."),
          Key.of("jobs", Kind.SECTION_LIST, null, "The jobs, at least one."));

  static final List<Key> STORE =
      List.of(
          Key.of(
              "type",
              Kind.TEXT,
              "h2",
              "Store type: h2, mysql, mariadb, postgres, redis, redlock, mongo, etcd, zookeeper, or"
                  + " another adapter's type in the jar."),
          Key.of(
              "url",
              Kind.TEXT,
              "jdbc:h2:file:./data/leasehold for h2",
              "The store's URL, e.g. jdbc:postgresql://host:5432/db, redis://host:6379/0,"
                  + " mongodb://host/db, http://etcd:2379, zk://zk1:2181,zk2:2181/chroot."),
          Key.of(
              "urls",
              Kind.TEXT_LIST,
              null,
              "Multi-node stores: the nodes' URLs (Redlock masters, etcd members)."),
          Key.of("username", Kind.TEXT, null, "Optional user name."),
          Key.of(
              "password",
              Kind.TEXT,
              null,
              "Optional password; never logged. Use a placeholder such as ${DB_PASSWORD}."),
          Key.of(
              "password-file",
              Kind.TEXT,
              null,
              "A file holding the password (readable by the owner only); not with password."),
          Key.of(
              "key-prefix", Kind.TEXT, null, "Key or collection prefix, where the store has one."),
          Key.of(
              "command-timeout",
              Kind.DURATION,
              "the smallest renew interval, at most 5s",
              "Upper bound for one store round trip."),
          Key.of("options", Kind.TEXT_MAP, null, "Store-specific options (see docs/stores/)."));

  static final List<Key> LEASE =
      List.of(
          Key.of("ttl", Kind.DURATION, "30s", "Lease time to live for jobs that set none."),
          Key.of(
              "renew-every",
              Kind.DURATION,
              "ttl / 3",
              "How often a running job's lease is renewed; less than ttl."));

  static final List<Key> ADMIN =
      List.of(
          Key.of(
              "listen",
              Kind.TEXT,
              "127.0.0.1:8077",
              "host:port of the admin endpoint; port 0 picks a free one."),
          Key.of(
              "token",
              Kind.TEXT,
              null,
              "Bearer token for POST /jobs/{name}/trigger (and every endpoint but /health when"
                  + " listening beyond loopback). Use a placeholder."));

  static final List<Key> LOG =
      List.of(
          new Key("format", Kind.TEXT, "text", "text or json lines.", List.of("text", "json")),
          new Key(
              "level",
              Kind.TEXT,
              "INFO",
              "Root log level.",
              List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR")));

  static final List<Key> JOB =
      List.of(
          Key.of(
              "name",
              Kind.TEXT,
              null,
              "Job and lease name: [A-Za-z0-9._-], 1-100 characters, unique."),
          Key.of(
              "cron",
              Kind.TEXT,
              null,
              "5 fields (min hour dom month dow) or 6 with seconds first, in the job's zone."),
          Key.of("every", Kind.DURATION, null, "A fixed interval aligned to the epoch."),
          Key.of("offset", Kind.DURATION, "0s", "With every: shift from the epoch alignment."),
          Key.of("at", Kind.TEXT, null, "One instant, e.g. 2026-11-30T06:30:00+08:00."),
          Key.of("zone", Kind.TEXT, "top-level zone", "Zone of this job's cron or at."),
          Key.of("command", Kind.TEXT_LIST, null, "Argv list, run without a shell."),
          Key.of("http", Kind.SECTION, null, "An HTTP request to send."),
          Key.of("class", Kind.TEXT, null, "A Java class implementing dev.leasehold.core.job.Job."),
          Key.of("env", Kind.TEXT_MAP, null, "Command jobs: variables added to the environment."),
          Key.of("workdir", Kind.TEXT, "the daemon's", "Command jobs: working directory."),
          Key.of(
              "kill-grace",
              Kind.DURATION,
              "10s",
              "Command jobs: time between SIGTERM and SIGKILL when the job must stop."),
          Key.of("timeout", Kind.DURATION, null, "Stop the job after this long (timed-out)."),
          Key.of("ttl", Kind.DURATION, "lease.ttl", "This job's lease TTL."),
          Key.of("renew-every", Kind.DURATION, "lease.renew-every", "This job's renew interval."),
          Key.of(
              "misfire-grace",
              Kind.DURATION,
              "1m",
              "A firing that could not start on time still runs this late; 0s disables catch-up."));

  static final List<Key> HTTP =
      List.of(
          Key.of("method", Kind.TEXT, "GET", "HTTP method."),
          Key.of("url", Kind.TEXT, null, "http:// or https:// URL."),
          Key.of("headers", Kind.TEXT_MAP, null, "Request headers."),
          Key.of("body", Kind.TEXT, null, "Request body."),
          Key.of("timeout", Kind.DURATION, "the job's timeout, else 30s", "Whole-exchange limit."));

  /** Exactly one of these per job. */
  static final List<String> SCHEDULES = List.of("cron", "every", "at");

  /** Exactly one of these per job. */
  static final List<String> ACTIONS = List.of("command", "http", "class");

  /** The key names of a section, in order. */
  static Set<String> names(List<Key> keys) {
    Set<String> names = new LinkedHashSet<>();
    keys.forEach(k -> names.add(k.name()));
    return Collections.unmodifiableSet(names);
  }
}
