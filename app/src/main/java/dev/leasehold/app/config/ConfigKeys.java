package dev.leasehold.app.config;

import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.scheduler.JobPolicy;
import dev.leasehold.core.scheduler.RetryPolicy;
import dev.leasehold.core.scheduler.Scheduler;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Every key of the configuration file, once: its section, kind, parser, default and meaning. The
 * loader reads values through these keys ({@link Section#get}, {@link Section#value}) and allows
 * exactly these names ({@link #names}); {@link ConfigSchema} derives the published JSON Schema from
 * them and a test holds the key tables of docs/configuration.md to them, so the validator, the
 * schema and the reference cannot drift apart. A default that the core also needs (the lease TTL,
 * the retry backoff, the history retention) is defined once in the core and named here.
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
    SECTION_LIST,
    /** A mapping of names to mappings, e.g. {@code groups}. */
    SECTION_MAP
  }

  /** Reads one key's value from its section; empty when the key is absent. */
  @FunctionalInterface
  interface Reader<T> {
    Optional<T> read(Section section, Key<T> key) throws ConfigException;
  }

  /**
   * One key.
   *
   * @param reader how its value is read and checked (errors name the field)
   * @param defaultValue the value when the key is absent, or {@code null} when its absence means
   *     something else (described by {@code defaultText})
   * @param defaultText the default as the schema and the reference show it, or {@code null}
   * @param values the allowed values (case-insensitive) for an enumerated text, else empty
   */
  record Key<T>(
      String name,
      Kind kind,
      Reader<T> reader,
      T defaultValue,
      String defaultText,
      String description,
      List<String> values) {

    /** A key whose default, if any, is described rather than typed. */
    static Key<String> of(String name, Kind kind, String defaultText, String description) {
      Reader<String> reader =
          kind == Kind.TEXT ? Section::text : (s, k) -> Optional.<String>empty();
      return new Key<>(name, kind, reader, null, defaultText, description, List.of());
    }

    static Key<String> text(String name, String defaultValue, String description) {
      return new Key<>(
          name, Kind.TEXT, Section::text, defaultValue, defaultValue, description, List.of());
    }

    static Key<Duration> duration(String name, Duration defaultValue, String description) {
      return new Key<>(
          name,
          Kind.DURATION,
          Section::duration,
          defaultValue,
          show(defaultValue),
          description,
          List.of());
    }

    /** A duration that must be greater than zero. */
    static Key<Duration> positiveDuration(String name, Duration defaultValue, String description) {
      return new Key<>(
          name,
          Kind.DURATION,
          Section::positiveDuration,
          defaultValue,
          show(defaultValue),
          description,
          List.of());
    }

    /** A whole number from {@code min} to {@code max}. */
    static Key<Integer> wholeNumber(
        String name, int min, int max, Integer defaultValue, String description) {
      Reader<Integer> reader =
          (s, key) -> {
            Optional<String> given = s.text(key);
            if (given.isEmpty()) {
              return Optional.empty();
            }
            int n;
            try {
              n = Integer.parseInt(given.get().strip());
            } catch (NumberFormatException e) {
              n = min - 1;
            }
            if (n < min || n > max) {
              throw s.error(
                  key,
                  "must be a whole number from "
                      + min
                      + " to "
                      + max
                      + ", got '"
                      + given.get()
                      + "'");
            }
            return Optional.of(n);
          };
      return new Key<>(
          name,
          Kind.TEXT,
          reader,
          defaultValue,
          defaultValue == null ? null : String.valueOf(defaultValue),
          description,
          List.of());
    }

    /**
     * One of {@code values}, in any case (stripped, and in the case the values are written in).
     *
     * @param problem the error for a value not allowed, given the normalised value
     */
    static Key<String> choice(
        String name,
        List<String> values,
        String defaultValue,
        String description,
        Function<String, String> problem) {
      Reader<String> reader =
          (s, key) -> {
            Optional<String> given = s.text(key).map(v -> normalise(values, v));
            if (given.isPresent() && !values.contains(given.get())) {
              throw s.error(key, problem.apply(given.get()));
            }
            return given;
          };
      return new Key<>(
          name, Kind.TEXT, reader, defaultValue, defaultValue, description, List.copyOf(values));
    }

    /** A zone id such as {@code UTC} or {@code Asia/Shanghai}. */
    static Key<ZoneId> zone(
        String name, ZoneId defaultValue, String defaultText, String description) {
      return new Key<>(
          name, Kind.TEXT, ConfigLoader::zone, defaultValue, defaultText, description, List.of());
    }

    /** This key with its default described as {@code text} (the typed default stays). */
    Key<T> describedAs(String text) {
      return new Key<>(name, kind, reader, defaultValue, text, description, values);
    }

    /** This key with its default described by {@code text}, given the default as written. */
    Key<T> describedAs(Function<String, String> text) {
      return describedAs(text.apply(defaultText));
    }

    /** {@code value} as it is written in this enumerated key's values. */
    String normalised(String value) {
      return normalise(values, value);
    }

    private static String normalise(List<String> values, String value) {
      String v = value.strip();
      boolean upper =
          !values.isEmpty() && values.get(0).equals(values.get(0).toUpperCase(Locale.ROOT));
      return upper ? v.toUpperCase(Locale.ROOT) : v.toLowerCase(Locale.ROOT);
    }
  }

  /** A duration as the reference writes it: {@code 30d}, {@code 10m}, {@code 30s}. */
  static String show(Duration d) {
    if (d == null) {
      return null;
    }
    long ms = d.toMillis();
    return ms != 0 && ms % 86_400_000 == 0 ? ms / 86_400_000 + "d" : Durations.format(d);
  }

  // top level

  /** Where this repository's store adapters live (the architecture rules hold them there). */
  static final String ADAPTERS = "dev.leasehold.store.";

  static final Key<ZoneId> ZONE =
      Key.zone(
          "zone",
          ZoneOffset.UTC,
          "UTC",
          "Default IANA time zone of cron and at schedules, e.g. Asia/Shanghai.");

  static final Key<Duration> SHUTDOWN_GRACE =
      Key.duration(
          "shutdown-grace",
          Scheduler.DEFAULT_SHUTDOWN_GRACE,
          "On SIGTERM/SIGINT: how long running jobs may finish before they are stopped.");

  // lease

  static final Key<Duration> TTL =
      Key.positiveDuration("ttl", LeaseDefaults.TTL, "Lease time to live for jobs that set none.");

  static final Key<Duration> RENEW_EVERY =
      Key.positiveDuration(
              "renew-every", null, "How often a running job's lease is renewed; less than ttl.")
          .describedAs("ttl / " + LeaseDefaults.RENEWALS_PER_TTL);

  // store

  /** The longest store round trip when no renew interval is shorter. */
  static final Key<Duration> COMMAND_TIMEOUT =
      Key.positiveDuration(
              "command-timeout",
              LeaseDefaults.COMMAND_TIMEOUT,
              "Upper bound for one store round trip.")
          .describedAs(d -> "the smallest renew interval, at most " + d);

  static final Key<Duration> KEEP =
      Key.duration(
          "keep",
          HistoryRetention.DEFAULT_KEEP,
          "Records older than this are removed (at least 1m), e.g. 30d, 90d, 12h.");

  static final Key<Integer> MAX_PER_JOB =
      Key.wholeNumber(
          "max-per-job",
          1,
          1_000_000,
          HistoryRetention.DEFAULT_MAX_PER_JOB,
          "At most this many records of one job are kept, the newest (1 to 1000000).");

  // admin

  static final Key<String> LISTEN =
      Key.text(
          "listen", "127.0.0.1:8077", "host:port of the admin endpoint; port 0 picks a free one.");

  // log

  static final Key<String> FORMAT =
      Key.choice(
          "format",
          List.of("text", "json"),
          "text",
          "text or json lines.",
          v -> "expected text or json, got '" + v + "'");

  static final Key<String> LEVEL =
      Key.choice(
          "level",
          List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR"),
          "INFO",
          "Root log level.",
          v -> "expected one of TRACE, DEBUG, INFO, WARN, ERROR");

  // groups

  static final Key<Integer> MAX_CONCURRENT =
      Key.wholeNumber(
          "max-concurrent",
          1,
          GroupReader.MAX_CONCURRENT,
          null,
          "How many jobs of the group may run at once across all replicas (1 to 100).");

  // jobs

  static final Key<Duration> OFFSET =
      Key.duration("offset", Duration.ZERO, "With every: shift from the epoch alignment.");

  static final Key<Duration> KILL_GRACE =
      Key.duration(
          "kill-grace",
          Duration.ofSeconds(10),
          "Command jobs: time between SIGTERM and SIGKILL when the job must stop.");

  static final Key<Duration> MISFIRE_GRACE =
      Key.duration(
          "misfire-grace",
          JobPolicy.DEFAULT_MISFIRE_GRACE,
          "A firing that could not start on time still runs this late; 0s disables catch-up.");

  // retry

  static final Key<Integer> ATTEMPTS =
      Key.wholeNumber(
          "attempts",
          1,
          100,
          RetryPolicy.NONE.attempts(),
          "Runs of one firing at most, the first included (1 to 100); 1 means no retry. Only"
              + " failed and timed-out scheduled runs are retried.");

  static final Key<Duration> BACKOFF =
      Key.positiveDuration(
          "backoff",
          RetryPolicy.DEFAULT_BACKOFF,
          "Pause from the end of the first failed run to its retry; doubles per attempt.");

  static final Key<Duration> MAX_BACKOFF =
      Key.positiveDuration(
          "max-backoff",
          RetryPolicy.DEFAULT_MAX_BACKOFF,
          "The pause never grows past this; at least the backoff.");

  // http

  /** An HTTP request's limit when neither it nor its job gives one. */
  static final Key<Duration> HTTP_TIMEOUT =
      Key.positiveDuration("timeout", Duration.ofSeconds(30), "Whole-exchange limit.")
          .describedAs(d -> "the job's timeout, else " + d);

  // top level, the keys that are sections or are read without a typed default

  static final Key<String> NODE =
      Key.of(
          "node",
          Kind.TEXT,
          LeaseDefaults.NODE_TEXT,
          "This replica's name (1-200 characters): the lease holder, LEASEHOLD_NODE for jobs,"
              + " the node of each history record. Give each replica its own.");

  static final Key<String> NAMESPACE =
      Key.of(
          "namespace",
          Kind.TEXT,
          "none",
          "Keeps this service apart from others on the same store: 1-40 characters of a-z,"
              + " 0-9 and '-', starting with a letter or digit. Its leases, history and pauses"
              + " are stored under its own names and it sees no one else's. Without it the"
              + " store's layout is as it always was.");

  static final Key<String> TOP_STORE =
      Key.of(
          "store",
          Kind.SECTION,
          StoreDefaults.TYPE + " at " + StoreDefaults.URL,
          "Where leases and history live.");

  static final Key<String> TOP_LEASE =
      Key.of("lease", Kind.SECTION, null, "Defaults for every job's lease.");

  static final Key<String> TOP_ADMIN =
      Key.of("admin", Kind.SECTION, "off", "The admin HTTP endpoint (status page, metrics).");

  static final Key<String> TOP_LOG =
      Key.of(
          "log",
          Kind.SECTION,
          FORMAT.defaultText() + ", " + LEVEL.defaultText(),
          "Log format and level.");

  static final Key<String> TOP_NOTIFY =
      Key.of(
          "notify",
          Kind.SECTION,
          "none",
          "Default notifier of every job without its own: a command or an HTTP request that"
              + " gets each failure, miss and recovery as JSON.");

  static final Key<String> TOP_GROUPS =
      Key.of(
          "groups",
          Kind.SECTION_MAP,
          "none",
          "Concurrency groups by name, e.g. backups: {max-concurrent: 1}: the jobs of a group"
              + " (job key group) run at most max-concurrent at once across the cluster.");

  static final Key<String> TOP_RETRY =
      Key.of(
          "retry",
          Kind.SECTION,
          "attempts " + ATTEMPTS.defaultText() + " (no retry)",
          "Default retry of every job: how often a failed or timed-out run is run again.");

  static final Key<String> TOP_CALENDARS =
      Key.of(
          "calendars",
          Kind.SECTION_MAP,
          "none",
          "Named lists of exclusion windows (the items of a job's exclude, plus {ics: path}),"
              + " e.g. holidays: [{ics: /etc/leasehold/holidays.ics}], which a job's exclude"
              + " names.");

  static final Key<String> TOP_JOBS =
      Key.of("jobs", Kind.SECTION_LIST, null, "The jobs, at least one.");

  static final Key<String> TOP_CHECKS =
      Key.of(
          "checks",
          Kind.SECTION_LIST,
          "none",
          "Heartbeat checks for jobs that run elsewhere: each expects a ping (POST"
              + " /ping/{name}) once per period and notifies when none came within the period"
              + " plus its grace.");

  static final List<Key<?>> TOP =
      List.of(
          NODE,
          NAMESPACE,
          ZONE,
          SHUTDOWN_GRACE,
          TOP_STORE,
          TOP_LEASE,
          TOP_ADMIN,
          TOP_LOG,
          TOP_NOTIFY,
          TOP_GROUPS,
          TOP_RETRY,
          TOP_CALENDARS,
          TOP_JOBS,
          TOP_CHECKS);

  static final List<Key<?>> GROUP = List.of(MAX_CONCURRENT);

  // store

  static final Key<String> STORE_TYPE =
      Key.of(
          "type",
          Kind.TEXT,
          StoreDefaults.TYPE,
          "Store type: "
              + String.join(", ", StoreCatalog.discovered().types(ADAPTERS))
              + ", or another adapter's type in the jar.");

  static final Key<String> STORE_URL =
      Key.of(
          "url",
          Kind.TEXT,
          StoreDefaults.URL + " for " + StoreDefaults.TYPE,
          "The store's URL, e.g. jdbc:postgresql://host:5432/db, redis://host:6379/0,"
              + " mongodb://host/db, http://etcd:2379, zk://zk1:2181,zk2:2181/chroot.");

  static final Key<String> STORE_URLS =
      Key.of(
          "urls",
          Kind.TEXT_LIST,
          null,
          "Multi-node stores: the nodes' URLs (Redlock masters, etcd members).");

  static final Key<String> STORE_USERNAME =
      Key.of("username", Kind.TEXT, null, "Optional user name.");

  static final Key<String> STORE_PASSWORD =
      Key.of(
          "password",
          Kind.TEXT,
          null,
          "Optional password; never logged. Use a placeholder such as ${DB_PASSWORD}.");

  static final Key<String> STORE_PASSWORD_FILE =
      Key.of(
          "password-file",
          Kind.TEXT,
          null,
          "A file holding the password (readable by the owner only); not with password.");

  static final Key<String> STORE_KEY_PREFIX =
      Key.of("key-prefix", Kind.TEXT, null, "Key or collection prefix, where the store has one.");

  static final Key<String> STORE_OPTIONS =
      Key.of("options", Kind.TEXT_MAP, null, "Store-specific options (see docs/stores/).");

  static final Key<String> STORE_HISTORY =
      Key.of(
          "history",
          Kind.SECTION,
          "keep " + KEEP.defaultText() + ", max-per-job " + MAX_PER_JOB.defaultText(),
          "What the execution history keeps; the rest is pruned about once a minute, by one"
              + " replica at a time.");

  static final List<Key<?>> STORE =
      List.of(
          STORE_TYPE,
          STORE_URL,
          STORE_URLS,
          STORE_USERNAME,
          STORE_PASSWORD,
          STORE_PASSWORD_FILE,
          STORE_KEY_PREFIX,
          COMMAND_TIMEOUT,
          STORE_OPTIONS,
          STORE_HISTORY);

  static final List<Key<?>> HISTORY = List.of(KEEP, MAX_PER_JOB);

  static final List<Key<?>> LEASE = List.of(TTL, RENEW_EVERY);

  // admin

  static final Key<String> ADMIN_TOKEN =
      Key.of(
          "token",
          Kind.TEXT,
          null,
          "Bearer token for POST /jobs/{name}/trigger, pause, resume and reload, for run output"
              + " (/history, /jobs/{name}), and for every endpoint but /health when listening"
              + " beyond loopback; at least 16 characters, never a shipped example's. Use a"
              + " placeholder or token-file.");

  static final Key<String> ADMIN_TOKEN_FILE =
      Key.of(
          "token-file",
          Kind.TEXT,
          null,
          "A file holding the admin token (readable by the owner only); not with token.");

  static final Key<String> ADMIN_READ_TOKEN =
      Key.of(
          "read-token",
          Kind.TEXT,
          null,
          "Bearer token that reads everything (status, history with output, jobs, nodes, metrics)"
              + " and changes nothing (403), at least 16 characters, not the token. Use a"
              + " placeholder.");

  static final Key<String> ADMIN_ALLOWED_HOSTS =
      Key.of(
          "allowed-hosts",
          Kind.TEXT_LIST,
          "loopback names and the listen address",
          "More host names the endpoint answers to (the Host header), e.g. the name a proxy"
              + " or a Service uses; others are refused.");

  static final List<Key<?>> ADMIN =
      List.of(LISTEN, ADMIN_TOKEN, ADMIN_TOKEN_FILE, ADMIN_READ_TOKEN, ADMIN_ALLOWED_HOSTS);

  static final List<Key<?>> LOG = List.of(FORMAT, LEVEL);

  // jobs

  static final Key<String> JOB_NAME =
      Key.of(
          "name", Kind.TEXT, null, "Job and lease name: [A-Za-z0-9._-], 1-100 characters, unique.");

  static final Key<String> JOB_CRON =
      Key.of(
          "cron",
          Kind.TEXT,
          null,
          "5 fields (min hour dom month dow) or 6 with seconds first, in the job's zone.");

  static final Key<String> JOB_EVERY =
      Key.of("every", Kind.DURATION, null, "A fixed interval aligned to the epoch.");

  static final Key<String> JOB_AT =
      Key.of("at", Kind.TEXT, null, "One instant, e.g. 2026-11-30T06:30:00+08:00.");

  static final Key<String> JOB_AFTER =
      Key.of(
          "after",
          Kind.SECTION,
          null,
          "A job name, or {job, on}: run once for each firing of that job whose final run (after"
              + " its retries) ended as on says, under that firing's instant.");

  static final Key<ZoneId> JOB_ZONE =
      Key.zone("zone", null, "top-level zone", "Zone of this job's cron or at.");

  static final Key<String> JOB_COMMAND =
      Key.of("command", Kind.TEXT_LIST, null, "Argv list, run without a shell.");

  static final Key<String> JOB_HTTP =
      Key.of("http", Kind.SECTION, null, "An HTTP request to send.");

  static final Key<String> JOB_CLASS =
      Key.of("class", Kind.TEXT, null, "A Java class implementing dev.leasehold.core.job.Job.");

  static final Key<String> JOB_ENV =
      Key.of("env", Kind.TEXT_MAP, null, "Command jobs: variables added to the environment.");

  static final Key<String> JOB_WORKDIR =
      Key.of("workdir", Kind.TEXT, "the daemon's", "Command jobs: working directory.");

  static final Key<Duration> JOB_TIMEOUT =
      Key.positiveDuration("timeout", null, "Stop the job after this long (timed-out).");

  static final Key<Duration> JOB_TTL =
      Key.positiveDuration("ttl", null, "This job's lease TTL.").describedAs("lease.ttl");

  static final Key<Duration> JOB_RENEW_EVERY =
      Key.positiveDuration("renew-every", null, "This job's renew interval.")
          .describedAs("lease.renew-every");

  static final Key<String> JOB_GROUP =
      Key.of(
          "group",
          Kind.TEXT,
          "none",
          "The concurrency group (a name under the top-level groups) this job belongs to.");

  static final Key<Duration> JOB_JITTER =
      Key.positiveDuration(
              "jitter",
              null,
              "Start each firing at a deterministic offset in [0, jitter) after its scheduled"
                  + " instant, the same on every replica; kept below the gap to the next firing.")
          .describedAs("0s");

  static final Key<String> JOB_NOTIFY =
      Key.of(
          "notify",
          Kind.SECTION,
          "the top-level notify",
          "This job's notifier (replaces the top-level one); notify: {} sends nothing.");

  static final Key<String> JOB_RETRY =
      Key.of(
          "retry",
          Kind.SECTION,
          "the top-level retry",
          "This job's retry; keys it leaves out come from the top-level retry.");

  static final Key<String> JOB_OVERLAP =
      Key.choice(
          "overlap",
          List.of("skip", "buffer-one", "replace", "allow"),
          "skip",
          "A firing due while the job runs anywhere: skip (not run), buffer-one (the first one"
              + " waits and starts when the run ends, within its misfire-grace; later ones are"
              + " skipped), replace (the run is stopped, recorded replaced, and the first one"
              + " starts once it ended), or allow (runs of consecutive firings overlap).",
          v -> "expected skip or buffer-one, replace or allow, got '" + v + "'");

  static final Key<String> JOB_START =
      Key.of(
          "start",
          Kind.TEXT,
          "none",
          "No firing before this instant (inclusive), e.g. 2026-12-01T00:00:00+01:00, or without"
              + " offset in the job's zone.");

  static final Key<String> JOB_END =
      Key.of(
          "end", Kind.TEXT, "none", "No firing after this instant (inclusive); written as start.");

  static final Key<String> JOB_EXCLUDE =
      Key.of(
          "exclude",
          Kind.SECTION_LIST,
          "none",
          "Windows in which firings do not run and are not missed: {from, to}, {dates},"
              + " {cron, for}, or the name of a calendar under the top-level calendars.");

  static final List<Key<?>> JOB =
      List.of(
          JOB_NAME,
          JOB_CRON,
          JOB_EVERY,
          OFFSET,
          JOB_AT,
          JOB_AFTER,
          JOB_ZONE,
          JOB_COMMAND,
          JOB_HTTP,
          JOB_CLASS,
          JOB_ENV,
          JOB_WORKDIR,
          KILL_GRACE,
          JOB_TIMEOUT,
          JOB_TTL,
          JOB_RENEW_EVERY,
          MISFIRE_GRACE,
          JOB_GROUP,
          JOB_JITTER,
          JOB_OVERLAP,
          JOB_START,
          JOB_END,
          JOB_EXCLUDE,
          JOB_NOTIFY,
          JOB_RETRY);

  /** Exactly one of these per job. */
  static final List<Key<?>> SCHEDULES = List.of(JOB_CRON, JOB_EVERY, JOB_AT, JOB_AFTER);

  // after

  static final Key<String> AFTER_JOB =
      Key.of("job", Kind.TEXT, null, "The upstream job's name (a job of the same file).");

  static final Key<String> AFTER_ON =
      Key.of(
          "on",
          Kind.TEXT_LIST,
          "[succeeded]",
          "The upstream's final outcomes that start this job: succeeded, failed (failed,"
              + " timed-out or lease-lost), any.");

  static final List<Key<?>> AFTER = List.of(AFTER_JOB, AFTER_ON);

  /** Exactly one of these per job. */
  static final List<Key<?>> ACTIONS = List.of(JOB_COMMAND, JOB_HTTP, JOB_CLASS);

  /** Keys that only a command job may give. */
  static final List<Key<?>> COMMAND_ONLY = List.of(JOB_ENV, JOB_WORKDIR, KILL_GRACE);

  static final List<Key<?>> RETRY = List.of(ATTEMPTS, BACKOFF, MAX_BACKOFF);

  // an exclusion window: an item of a job's exclude or of a calendar

  static final Key<String> EXCLUDE_FROM =
      Key.of(
          "from",
          Kind.TEXT,
          null,
          "With to: the window [from, to), instants such as 2026-12-24T18:00:00+01:00, or without"
              + " offset in the job's zone.");

  static final Key<String> EXCLUDE_TO =
      Key.of("to", Kind.TEXT, null, "With from: the end of the window (not in it).");

  static final Key<String> EXCLUDE_DATES =
      Key.of(
          "dates",
          Kind.TEXT_LIST,
          null,
          "Whole days in the job's zone: 2026-12-25, or *-01-01 for every year.");

  static final Key<String> EXCLUDE_CRON =
      Key.of(
          "cron",
          Kind.TEXT,
          null,
          "With for: a window starts at each firing of this cron, in the job's zone.");

  static final Key<Duration> EXCLUDE_FOR =
      Key.positiveDuration("for", null, "With cron: how long each window lasts.");

  static final Key<String> EXCLUDE_ICS =
      Key.of(
          "ics",
          Kind.TEXT,
          null,
          "In a calendar only: an iCalendar file whose all-day and timed events are windows.");

  static final List<Key<?>> EXCLUSION =
      List.of(EXCLUDE_FROM, EXCLUDE_TO, EXCLUDE_DATES, EXCLUDE_CRON, EXCLUDE_FOR, EXCLUDE_ICS);

  /** An exclusion item gives exactly one of these (from with to, cron with for). */
  static final List<Key<?>> EXCLUSION_FORMS =
      List.of(EXCLUDE_FROM, EXCLUDE_DATES, EXCLUDE_CRON, EXCLUDE_ICS);

  // checks

  static final Key<String> CHECK_NAME =
      Key.of(
          "name",
          Kind.TEXT,
          null,
          "The check's name, in /ping/{name}: [A-Za-z0-9._-], 1-100 characters, unique among"
              + " the checks.");

  static final Key<String> CHECK_EVERY =
      Key.of("every", Kind.DURATION, null, "The period: a ping is expected this often.");

  static final Key<String> CHECK_CRON =
      Key.of(
          "cron",
          Kind.TEXT,
          null,
          "The job's own schedule, 5 or 6 fields in the check's zone: a ping is expected by the"
              + " next cron time after the last one.");

  static final Key<ZoneId> CHECK_ZONE =
      Key.zone("zone", null, "top-level zone", "Zone of this check's cron.");

  static final Key<Duration> CHECK_GRACE =
      Key.duration(
          "grace",
          Duration.ofMinutes(5),
          "How much later than its period a ping may come before the check is missed.");

  static final Key<String> CHECK_PING_KEY =
      Key.of(
          "ping-key",
          Kind.TEXT,
          null,
          "The secret a ping must carry (Authorization: Bearer), at least 16 characters; never"
              + " shown, never passed to jobs. Use a placeholder.");

  static final Key<String> CHECK_NOTIFY =
      Key.of(
          "notify",
          Kind.SECTION,
          "the top-level notify",
          "Where the check's events go, as a job's notify; its on may list missed, recovered"
              + " and failed.");

  static final List<Key<?>> CHECK =
      List.of(
          CHECK_NAME,
          CHECK_EVERY,
          CHECK_CRON,
          CHECK_ZONE,
          CHECK_GRACE,
          CHECK_PING_KEY,
          CHECK_NOTIFY);

  /** Exactly one of these per check. */
  static final List<Key<?>> CHECK_SCHEDULES = List.of(CHECK_CRON, CHECK_EVERY);

  // notify

  static final Key<String> NOTIFY_COMMAND =
      Key.of(
          "command",
          Kind.TEXT_LIST,
          null,
          "Argv list, run without a shell; gets the event as JSON on stdin and in"
              + " LEASEHOLD_EVENT; exit 0 means sent.");

  static final Key<String> NOTIFY_HTTP =
      Key.of(
          "http",
          Kind.SECTION,
          null,
          "An HTTP request (method POST unless given) with the event as its JSON body; a 2xx"
              + " answer means sent.");

  static final Key<String> NOTIFY_ON =
      Key.of(
          "on",
          Kind.TEXT_LIST,
          "[failed, missed, recovered]",
          "The events sent: failed, missed, recovered, succeeded, started.");

  static final Key<String> NOTIFY_NTFY =
      Key.of("ntfy", Kind.SECTION, null, "An ntfy topic: the message as body, a push to phones.");

  static final Key<String> NOTIFY_TELEGRAM =
      Key.of(
          "telegram", Kind.SECTION, null, "A Telegram chat, through a bot: the message as text.");

  static final Key<String> NOTIFY_EMAIL =
      Key.of(
          "email",
          Kind.SECTION,
          null,
          "E-mail through an SMTP server: subject with the job and event, the message as body.");

  static final Key<String> NOTIFY_MESSAGE =
      Key.of(
          "message",
          Kind.TEXT,
          "job, event, firing in the job's zone, node, last output line",
          "The text for ntfy, Telegram and e-mail; {{job}}, {{event}}, {{firing}}, {{node}},"
              + " {{fence}}, {{outcome}}, {{attempt}}, {{exit_code}}, {{detail}}, {{output}},"
              + " {{duration}} are replaced.");

  static final List<Key<?>> NOTIFY =
      List.of(
          NOTIFY_COMMAND,
          NOTIFY_HTTP,
          NOTIFY_NTFY,
          NOTIFY_TELEGRAM,
          NOTIFY_EMAIL,
          NOTIFY_MESSAGE,
          NOTIFY_ON);

  /** A notifier gives one or several of these. */
  static final List<Key<?>> NOTIFIERS =
      List.of(NOTIFY_COMMAND, NOTIFY_HTTP, NOTIFY_NTFY, NOTIFY_TELEGRAM, NOTIFY_EMAIL);

  // notify.ntfy

  static final Key<String> NTFY_URL =
      Key.of("url", Kind.TEXT, null, "The topic's URL, e.g. https://ntfy.sh/TOPIC.");

  static final Key<String> NTFY_PRIORITY =
      Key.of(
          "priority",
          Kind.TEXT,
          "the server's (default)",
          "Priority header: min, low, default, high, urgent or 1 to 5.");

  static final Key<String> NTFY_TAGS =
      Key.of("tags", Kind.TEXT_LIST, null, "Tags header: tags or emoji short codes.");

  static final Key<String> NTFY_TOKEN =
      Key.of("token", Kind.TEXT, null, "Access token, sent as Authorization: Bearer; a secret.");

  static final List<Key<?>> NTFY = List.of(NTFY_URL, NTFY_PRIORITY, NTFY_TAGS, NTFY_TOKEN);

  // notify.telegram

  static final Key<String> TELEGRAM_BOT_TOKEN =
      Key.of("bot-token", Kind.TEXT, null, "The bot's token; a secret.");

  static final Key<String> TELEGRAM_CHAT_ID =
      Key.of("chat-id", Kind.TEXT, null, "The chat to write to (quote it: it may be negative).");

  static final Key<String> TELEGRAM_API_URL =
      Key.of("api-url", Kind.TEXT, "https://api.telegram.org", "The Bot API's base URL.");

  static final List<Key<?>> TELEGRAM =
      List.of(TELEGRAM_BOT_TOKEN, TELEGRAM_CHAT_ID, TELEGRAM_API_URL);

  // notify.email

  static final Key<String> EMAIL_SMTP =
      Key.of(
          "smtp",
          Kind.TEXT,
          null,
          "smtp://host[:port] (default port 587) or smtps://host[:port] (TLS from the start,"
              + " default port 465).");

  static final Key<String> EMAIL_STARTTLS =
      Key.of(
          "starttls",
          Kind.TEXT,
          "true",
          "For smtp://: switch to TLS with STARTTLS before anything else, and fail when the"
              + " server does not offer it; false sends in clear text (a local relay only).");

  static final Key<String> EMAIL_USERNAME =
      Key.of("username", Kind.TEXT, null, "User name for SMTP AUTH (only over TLS).");

  static final Key<String> EMAIL_PASSWORD_FILE =
      Key.of("password-file", Kind.TEXT, null, "File holding the SMTP password; a secret.");

  static final Key<String> EMAIL_FROM = Key.of("from", Kind.TEXT, null, "Sender address.");

  static final Key<String> EMAIL_TO = Key.of("to", Kind.TEXT_LIST, null, "Recipient addresses.");

  static final List<Key<?>> EMAIL =
      List.of(
          EMAIL_SMTP, EMAIL_STARTTLS, EMAIL_USERNAME, EMAIL_PASSWORD_FILE, EMAIL_FROM, EMAIL_TO);

  // http

  static final Key<String> HTTP_METHOD = Key.of("method", Kind.TEXT, "GET", "HTTP method.");

  static final Key<String> HTTP_URL = Key.of("url", Kind.TEXT, null, "http:// or https:// URL.");

  static final Key<String> HTTP_HEADERS =
      Key.of("headers", Kind.TEXT_MAP, null, "Request headers.");

  static final Key<String> HTTP_BODY = Key.of("body", Kind.TEXT, null, "Request body.");

  static final Key<String> HTTP_LEASEHOLD_HEADERS =
      Key.of(
          "leasehold-headers",
          Kind.TEXT_MAP,
          "X-Leasehold-Job, -Fire-Time, -Fence, -Node",
          "Names of the headers carrying the run's job, fire-time, fence and node (keys job,"
              + " fire-time, fence, node).");

  static final Key<String> HTTP_FOLLOW_REDIRECTS =
      Key.choice(
          "follow-redirects",
          List.of("same-origin", "any"),
          "same-origin",
          "Redirects followed: same-origin (and http to https on the same host), or any (never"
              + " to loopback or link-local addresses from another host, never re-sending a body).",
          v -> "expected same-origin or any, got '" + v + "'");

  static final List<Key<?>> HTTP =
      List.of(
          HTTP_METHOD,
          HTTP_URL,
          HTTP_HEADERS,
          HTTP_BODY,
          HTTP_TIMEOUT,
          HTTP_LEASEHOLD_HEADERS,
          HTTP_FOLLOW_REDIRECTS);

  /** The default store, as the store adapters on the class path declare it. */
  private static final class StoreDefaults {
    static final String TYPE = StoreCatalog.discovered().defaultType();
    static final String URL = StoreCatalog.discovered().defaultUrl(TYPE);
  }

  /** The key names of a section, in order. */
  static Set<String> names(List<Key<?>> keys) {
    Set<String> names = new LinkedHashSet<>();
    keys.forEach(k -> names.add(k.name()));
    return Collections.unmodifiableSet(names);
  }
}
