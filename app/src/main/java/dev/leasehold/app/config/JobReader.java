package dev.leasehold.app.config;

import dev.leasehold.core.job.Job;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.store.Redaction;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads the {@code jobs} list: names, schedules, lease overrides and actions. */
final class JobReader {
  static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(10);
  static final Duration DEFAULT_HTTP_TIMEOUT = Duration.ofSeconds(30);

  private static final Set<String> JOB = ConfigKeys.names(ConfigKeys.JOB);
  private static final Set<String> HTTP = ConfigKeys.names(ConfigKeys.HTTP);
  private static final List<String> SCHEDULES = ConfigKeys.SCHEDULES;
  private static final List<String> ACTIONS = ConfigKeys.ACTIONS;

  private final ZoneId defaultZone;
  private final Duration defaultTtl;
  private final Duration defaultRenewEvery;

  JobReader(ZoneId defaultZone, Duration defaultTtl, Duration defaultRenewEvery) {
    this.defaultZone = defaultZone;
    this.defaultTtl = defaultTtl;
    this.defaultRenewEvery = defaultRenewEvery;
  }

  List<JobConfig> readAll(List<Section> sections) throws ConfigException {
    Map<String, String> seen = new HashMap<>();
    List<JobConfig> jobs = new ArrayList<>();
    for (Section s : sections) {
      JobConfig job = read(s);
      String earlier = seen.putIfAbsent(job.name(), s.path());
      if (earlier != null) {
        throw s.error("name", "duplicate job name '" + job.name() + "' (also " + earlier + ")");
      }
      jobs.add(job);
    }
    return jobs;
  }

  private JobConfig read(Section s) throws ConfigException {
    s.allow(JOB);
    String name = s.requiredText("name");
    String problem = LeaseNames.problem(name);
    if (problem != null) {
      throw s.error("name", "invalid job name '" + name + "': " + problem);
    }
    ZoneId zone = ConfigLoader.zone(s, "zone").orElse(defaultZone);
    Schedule schedule = schedule(s, zone);

    Duration ttl = s.positiveDuration("ttl").orElse(defaultTtl);
    Duration renewEvery = s.positiveDuration("renew-every").orElse(null);
    if (renewEvery == null && !s.has("ttl")) {
      renewEvery = defaultRenewEvery;
    }
    if (renewEvery != null && renewEvery.compareTo(ttl) >= 0) {
      throw s.error(
          s.has("renew-every") ? "renew-every" : "ttl",
          "renew-every "
              + Durations.format(renewEvery)
              + " must be less than the ttl "
              + Durations.format(ttl));
    }
    Duration timeout = s.positiveDuration("timeout").orElse(null);
    Duration misfireGrace = s.duration("misfire-grace").orElse(null);
    return new JobConfig(
        name, schedule, ttl, renewEvery, timeout, misfireGrace, action(s, timeout));
  }

  private static String exactlyOne(Section s, List<String> keys, String what)
      throws ConfigException {
    List<String> present = keys.stream().filter(s::has).toList();
    if (present.size() == 1) {
      return present.get(0);
    }
    if (present.isEmpty()) {
      throw s.error(null, "no " + what + "; give one of " + String.join(", ", keys));
    }
    throw s.error(
        present.get(1),
        "two " + what + "s (" + String.join(" and ", present) + "); give exactly one");
  }

  private static Schedule schedule(Section s, ZoneId zone) throws ConfigException {
    String kind = exactlyOne(s, SCHEDULES, "schedule");
    if (s.has("offset") && !kind.equals("every")) {
      throw s.error("offset", "only applies to an 'every' schedule");
    }
    try {
      return switch (kind) {
        case "cron" -> Schedule.cron(s.requiredText("cron"), zone);
        case "every" -> every(s);
        default -> Schedule.at(instant(s, zone));
      };
    } catch (IllegalArgumentException e) {
      throw s.error(kind.equals("every") && s.has("offset") ? "offset" : kind, e.getMessage());
    }
  }

  private static Schedule every(Section s) throws ConfigException {
    Duration interval = s.duration("every").orElseThrow();
    if (interval.isZero()) {
      throw s.error("every", "the interval must be greater than 0");
    }
    return Schedule.every(interval, s.duration("offset").orElse(Duration.ZERO));
  }

  private static Instant instant(Section s, ZoneId zone) throws ConfigException {
    String text = s.requiredText("at").strip();
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeException e) {
      // no offset given: a local date-time in the job's zone
    }
    try {
      return LocalDateTime.parse(text).atZone(zone).toInstant();
    } catch (DateTimeException e) {
      throw s.error(
          "at", "'" + text + "' is not a date-time; expected e.g. 2026-11-30T06:30:00+08:00");
    }
  }

  private static JobAction action(Section s, Duration jobTimeout) throws ConfigException {
    String kind = exactlyOne(s, ACTIONS, "action");
    if (!kind.equals("command")) {
      for (String key : List.of("env", "workdir", "kill-grace")) {
        if (s.has(key)) {
          throw s.error(key, "only applies to command jobs");
        }
      }
    }
    return switch (kind) {
      case "command" -> command(s);
      case "http" -> http(s, jobTimeout);
      default -> javaClass(s);
    };
  }

  private static JobAction command(Section s) throws ConfigException {
    if (!s.textList("command").isPresent()) {
      throw s.error("command", "expected a list: program and arguments");
    }
    List<String> argv = s.textList("command").orElseThrow();
    if (argv.isEmpty() || argv.get(0).isBlank()) {
      throw s.error("command", "must name a program: [\"/path/to/program\", \"arg\", ...]");
    }
    Map<String, String> env = s.textMap("env");
    for (String key : env.keySet()) {
      if (!key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw s.error("env." + key, "not a valid environment variable name");
      }
    }
    Path workdir = null;
    if (s.has("workdir")) {
      workdir = Path.of(s.requiredText("workdir"));
      if (!Files.isDirectory(workdir)) {
        throw s.error("workdir", "no such directory: " + workdir);
      }
    }
    Duration killGrace = s.duration("kill-grace").orElse(DEFAULT_KILL_GRACE);
    return new JobAction.Command(argv, env, workdir, killGrace);
  }

  /** Headers whose values are scrubbed from every printed line. */
  private static final Pattern CREDENTIAL_HEADER =
      Pattern.compile("(?i)auth|token|key|secret|cookie|password");

  private static JobAction http(Section job, Duration jobTimeout) throws ConfigException {
    Section s = job.section("http").orElseThrow();
    s.allow(HTTP);
    String method = s.text("method").orElse("GET").strip().toUpperCase(Locale.ROOT);
    if (!method.matches("[A-Z]{1,20}")) {
      throw s.error("method", "expected an HTTP method such as GET or POST");
    }
    String url = s.requiredText("url").strip();
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // the reason and position only: the URL may hold credentials
      throw s.error("url", "not a URL: " + e.getReason() + " at index " + e.getIndex());
    }
    if (uri.getScheme() == null
        || !Set.of("http", "https").contains(uri.getScheme().toLowerCase(Locale.ROOT))
        || uri.getHost() == null) {
      throw s.error("url", "expected http://host[:port]/path or https://...");
    }
    Duration timeout =
        s.positiveDuration("timeout")
            .orElse(jobTimeout != null ? jobTimeout : DEFAULT_HTTP_TIMEOUT);
    Map<String, String> headers = s.textMap("headers");
    Redaction.registerUrl(url);
    headers.forEach(
        (name, value) -> {
          if (CREDENTIAL_HEADER.matcher(name).find()) {
            Redaction.register(value);
          }
        });
    return new JobAction.Http(method, uri, headers, s.text("body").orElse(null), timeout);
  }

  private static JobAction javaClass(Section s) throws ConfigException {
    String name = s.requiredText("class").strip();
    String problem = javaJobProblem(name);
    if (problem != null) {
      throw s.error("class", problem);
    }
    return new JobAction.JavaClass(name);
  }

  /** Why {@code className} cannot be run as a job, or {@code null} when it can. */
  static String javaJobProblem(String className) {
    Class<?> type;
    try {
      type = Class.forName(className, false, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return "class " + className + " not found on the classpath";
    }
    if (!Job.class.isAssignableFrom(type)) {
      return "class " + className + " does not implement " + Job.class.getName();
    }
    if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())) {
      return "class " + className + " must be public and not abstract";
    }
    try {
      if (!Modifier.isPublic(type.getConstructor().getModifiers())) {
        throw new NoSuchMethodException();
      }
    } catch (NoSuchMethodException e) {
      return "class " + className + " needs a public no-argument constructor";
    }
    return null;
  }
}
