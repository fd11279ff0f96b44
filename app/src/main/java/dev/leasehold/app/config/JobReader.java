package dev.leasehold.app.config;

import dev.leasehold.app.config.ConfigKeys.Key;
import dev.leasehold.core.job.Job;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.schedule.AfterSchedule;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.scheduler.Overlap;
import dev.leasehold.core.scheduler.RetryPolicy;
import dev.leasehold.core.store.Redaction;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads the {@code jobs} list: names, schedules, lease overrides and actions. */
final class JobReader {
  private static final Logger log = LoggerFactory.getLogger(JobReader.class);

  private static final String PROGRAM_NEEDED =
      "must name a program: [\"/path/to/program\", \"arg\", ...]";

  private final ZoneId defaultZone;
  private final Duration defaultTtl;
  private final Duration defaultRenewEvery;
  private final NotifyConfig defaultNotify;
  private final RetryPolicy defaultRetry;
  private final ExclusionReader calendars;

  JobReader(
      ZoneId defaultZone,
      Duration defaultTtl,
      Duration defaultRenewEvery,
      NotifyConfig defaultNotify,
      RetryPolicy defaultRetry,
      ExclusionReader calendars) {
    this.defaultRetry = defaultRetry;
    this.calendars = calendars;
    this.defaultZone = defaultZone;
    this.defaultTtl = defaultTtl;
    this.defaultRenewEvery = defaultRenewEvery;
    this.defaultNotify = defaultNotify;
  }

  /**
   * Reads every job of {@code sections}: each one read is added to {@code jobs} and its section to
   * {@code read} (in the same order); the errors of the others go to {@code errors}.
   */
  void readAll(
      List<Section> sections, List<JobConfig> jobs, List<Section> read, ConfigErrors errors) {
    Map<String, String> seen = new HashMap<>();
    for (Section s : sections) {
      Optional<JobConfig> job = errors.read(() -> read(s));
      if (job.isEmpty()) {
        continue;
      }
      String earlier = seen.putIfAbsent(job.get().name(), s.path());
      if (earlier != null) {
        errors.add(
            s.error(
                ConfigKeys.JOB_NAME,
                "duplicate job name '" + job.get().name() + "' (also " + earlier + ")"));
        continue;
      }
      jobs.add(job.get());
      read.add(s);
    }
    chains(read, jobs, errors);
  }

  /** Every {@code after} names a job of the file, and no chain comes back to where it began. */
  private static void chains(List<Section> sections, List<JobConfig> jobs, ConfigErrors errors) {
    Map<String, String> upstreamOf = new LinkedHashMap<>();
    for (JobConfig job : jobs) {
      if (job.schedule() instanceof AfterSchedule after) {
        upstreamOf.put(job.name(), after.upstream());
      }
    }
    List<String> names = jobs.stream().map(JobConfig::name).toList();
    // a cycle is reported once, at its first job in the file
    java.util.Set<String> onReportedCycle = new java.util.HashSet<>();
    for (int i = 0; i < jobs.size(); i++) {
      String name = jobs.get(i).name();
      String upstream = upstreamOf.get(name);
      if (upstream == null || onReportedCycle.contains(name)) {
        continue;
      }
      if (!names.contains(upstream)) {
        errors.add(
            sections
                .get(i)
                .error(
                    ConfigKeys.JOB_AFTER,
                    "job '" + name + "' follows unknown job '" + upstream + "'; known: " + names));
        continue;
      }
      List<String> path = new ArrayList<>(List.of(name));
      for (String at = upstream; at != null; at = upstreamOf.get(at)) {
        path.add(at);
        if (at.equals(name)) {
          errors.add(
              sections
                  .get(i)
                  .error(ConfigKeys.JOB_AFTER, "a cycle of after: " + String.join(" -> ", path)));
          onReportedCycle.addAll(path);
          break;
        }
        if (path.size() > jobs.size() + 1) {
          break; // a cycle further up: reported for a job on it
        }
      }
    }
  }

  private JobConfig read(Section s) throws ConfigException {
    // an unknown key is often a known one misspelt: what it leaves missing is not reported too
    s.allow(ConfigKeys.JOB);
    ConfigErrors errors = new ConfigErrors();
    Optional<String> name = errors.read(() -> name(s));
    ZoneId zone = errors.read(() -> s.get(ConfigKeys.JOB_ZONE)).flatMap(z -> z).orElse(defaultZone);
    Optional<Schedule> schedule = errors.read(() -> schedule(s, zone));
    Optional<Duration[]> lease = errors.read(() -> lease(s));
    Optional<Optional<Duration>> timeout = errors.read(() -> s.get(ConfigKeys.JOB_TIMEOUT));
    // absent: the scheduler's default (JobPolicy), which the key names
    Optional<Optional<Duration>> misfireGrace = errors.read(() -> s.get(ConfigKeys.MISFIRE_GRACE));
    Optional<Optional<NotifyConfig>> notify =
        errors.read(
            () -> {
              NotifyConfig n = defaultNotify;
              Optional<Section> notifySection = s.section(ConfigKeys.JOB_NOTIFY);
              if (notifySection.isPresent()) {
                n = notify(notifySection.get());
              }
              return Optional.ofNullable(n == null ? null : n.inZone(zone));
            });
    Optional<RetryPolicy> retry =
        errors.read(
            () -> {
              Optional<Section> retrySection = s.section(ConfigKeys.JOB_RETRY);
              return retrySection.isPresent()
                  ? retry(retrySection.get(), defaultRetry)
                  : defaultRetry;
            });
    Optional<Optional<Duration>> jitter = errors.read(() -> s.get(ConfigKeys.JOB_JITTER));
    Optional<Optional<String>> group = errors.read(() -> group(s));
    Optional<String> overlap = errors.read(() -> s.value(ConfigKeys.JOB_OVERLAP));
    Optional<JobAction> action = errors.read(() -> action(s, timeout.flatMap(t -> t).orElse(null)));
    Optional<Schedule> windowed = Optional.empty();
    if (schedule.isPresent() && name.isPresent() && jitter.isPresent()) {
      Schedule base = schedule.get();
      if (jitter.get().isPresent()) {
        // every reader of the config (scheduler, status, resume) sees the jittered firings
        base = Schedule.jittered(base, name.get(), jitter.get().get());
      }
      Schedule jittered = base;
      windowed = errors.read(() -> windowed(s, jittered, zone));
    } else {
      // still report the errors of the windows
      errors.read(() -> windowed(s, Schedule.every(Duration.ofHours(1), Duration.ZERO), zone));
    }
    errors.throwIfAny();
    return new JobConfig(
        name.orElseThrow(),
        windowed.orElseThrow(),
        lease.orElseThrow()[0],
        lease.orElseThrow()[1],
        timeout.orElseThrow().orElse(null),
        misfireGrace.orElseThrow().orElse(null),
        action.orElseThrow(),
        notify.orElseThrow().orElse(null),
        jitter.orElseThrow().orElse(null),
        group.orElseThrow().orElse(null),
        retry.orElseThrow(),
        Overlap.valueOf(overlap.orElseThrow().toUpperCase(Locale.ROOT).replace('-', '_')));
  }

  private static String name(Section s) throws ConfigException {
    String name = s.requiredText(ConfigKeys.JOB_NAME);
    String problem = LeaseNames.problem(name);
    if (problem != null) {
      throw s.error(ConfigKeys.JOB_NAME, "invalid job name '" + name + "': " + problem);
    }
    return name;
  }

  /** The job's ttl and renew interval ({@code null}: ttl / 3). */
  private Duration[] lease(Section s) throws ConfigException {
    Duration ttl = s.get(ConfigKeys.JOB_TTL).orElse(defaultTtl);
    Duration renewEvery = s.get(ConfigKeys.JOB_RENEW_EVERY).orElse(null);
    if (renewEvery == null && !s.has(ConfigKeys.JOB_TTL)) {
      renewEvery = defaultRenewEvery;
    }
    if (renewEvery != null && renewEvery.compareTo(ttl) >= 0) {
      throw s.error(
          s.has(ConfigKeys.JOB_RENEW_EVERY) ? ConfigKeys.JOB_RENEW_EVERY : ConfigKeys.JOB_TTL,
          "renew-every "
              + Durations.format(renewEvery)
              + " must be less than the ttl "
              + Durations.format(ttl));
    }
    return new Duration[] {ttl, renewEvery};
  }

  private static Optional<String> group(Section s) throws ConfigException {
    String group = s.text(ConfigKeys.JOB_GROUP).map(String::strip).orElse(null);
    if (group != null && group.isEmpty()) {
      throw s.error(ConfigKeys.JOB_GROUP, "must not be empty");
    }
    return Optional.ofNullable(group);
  }

  /**
   * {@code schedule} bounded by the job's {@code start} and {@code end} and without the windows of
   * its {@code exclude}; {@code schedule} itself when it has none of them.
   */
  private Schedule windowed(Section s, Schedule schedule, ZoneId zone) throws ConfigException {
    ConfigErrors errors = new ConfigErrors();
    Optional<Instant> start = errors.read(() -> bound(s, ConfigKeys.JOB_START, zone));
    Optional<Instant> end = errors.read(() -> bound(s, ConfigKeys.JOB_END, zone));
    Optional<List<dev.leasehold.core.schedule.Exclusion>> exclusions =
        errors.read(() -> calendars.exclusions(s, zone));
    errors.throwIfAny();
    if (start.isPresent() && end.isPresent() && end.get().isBefore(start.get())) {
      throw s.error(ConfigKeys.JOB_END, "is before start " + start.get());
    }
    if (start.isEmpty() && end.isEmpty() && exclusions.orElseThrow().isEmpty()) {
      return schedule;
    }
    return Schedule.windowed(schedule, start.orElse(null), end.orElse(null), exclusions.get());
  }

  /** A job's {@code start} or {@code end}, or {@code null}. */
  private static Instant bound(Section s, Key<?> key, ZoneId zone) throws ConfigException {
    Optional<String> text = s.text(key);
    return text.isEmpty() ? null : ExclusionReader.instant(s, key, text.get(), zone);
  }

  /**
   * A {@code retry:} section; the keys it leaves out come from {@code base} (the top-level retry,
   * or the defaults: 1 attempt, backoff 30s, max-backoff 10m).
   */
  static RetryPolicy retry(Section s, RetryPolicy base) throws ConfigException {
    s.allow(ConfigKeys.RETRY);
    int attempts = s.get(ConfigKeys.ATTEMPTS).orElse(base.attempts());
    Duration backoff = s.get(ConfigKeys.BACKOFF).orElse(base.backoff());
    Duration maxBackoff = s.get(ConfigKeys.MAX_BACKOFF).orElse(null);
    if (maxBackoff == null) {
      maxBackoff = s.has(ConfigKeys.BACKOFF) ? max(backoff, base.maxBackoff()) : base.maxBackoff();
    }
    if (maxBackoff.compareTo(backoff) < 0) {
      throw s.error(
          s.has(ConfigKeys.MAX_BACKOFF) ? ConfigKeys.MAX_BACKOFF : ConfigKeys.BACKOFF,
          "max-backoff "
              + Durations.format(maxBackoff)
              + " must be at least the backoff "
              + Durations.format(backoff));
    }
    return new RetryPolicy(attempts, backoff, maxBackoff);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * A {@code notify:} section: one or several of {@code command}, {@code http}, {@code ntfy},
   * {@code telegram}, {@code email}, and {@code message}, {@code on}; an empty section means "no
   * notifier" (a job's way to opt out of the top-level default).
   */
  static NotifyConfig notify(Section s) throws ConfigException {
    s.allow(ConfigKeys.NOTIFY);
    if (ConfigKeys.NOTIFIERS.stream().noneMatch(s::has)) {
      if (s.has(ConfigKeys.NOTIFY_ON) || s.has(ConfigKeys.NOTIFY_MESSAGE)) {
        throw s.error("no notifier; give " + names(ConfigKeys.NOTIFIERS, " or "));
      }
      return null;
    }
    List<NotifyChannel> channels = new ArrayList<>();
    if (s.has(ConfigKeys.NOTIFY_COMMAND)) {
      channels.add(new NotifyChannel.Command(notifyCommand(s)));
    }
    Optional<Section> http = s.section(ConfigKeys.NOTIFY_HTTP);
    if (http.isPresent()) {
      JobAction.Http request = (JobAction.Http) http(http.get(), null, "POST");
      MessageTemplate body = null;
      if (request.body() != null) {
        body = template(http.get(), ConfigKeys.HTTP_BODY, request.body());
      }
      channels.add(new NotifyChannel.Http(request, body));
    }
    Optional<Section> ntfy = s.section(ConfigKeys.NOTIFY_NTFY);
    if (ntfy.isPresent()) {
      channels.add(NotifyChannels.ntfy(ntfy.get()));
    }
    Optional<Section> telegram = s.section(ConfigKeys.NOTIFY_TELEGRAM);
    if (telegram.isPresent()) {
      channels.add(NotifyChannels.telegram(telegram.get()));
    }
    Optional<Section> email = s.section(ConfigKeys.NOTIFY_EMAIL);
    if (email.isPresent()) {
      channels.add(NotifyChannels.email(email.get()));
    }
    MessageTemplate message = null;
    Optional<String> messageText = s.text(ConfigKeys.NOTIFY_MESSAGE);
    if (messageText.isPresent()) {
      message = template(s, ConfigKeys.NOTIFY_MESSAGE, messageText.get());
    }
    Set<String> on = NotifyConfig.DEFAULT_ON;
    if (s.has(ConfigKeys.NOTIFY_ON)) {
      List<String> given = s.textList(ConfigKeys.NOTIFY_ON).orElse(null);
      if (given == null || given.isEmpty()) {
        throw s.error(
            ConfigKeys.NOTIFY_ON,
            "expected a list of events: " + String.join(", ", NotifyConfig.EVENTS));
      }
      for (String event : given) {
        if (!NotifyConfig.EVENTS.contains(event.strip().toLowerCase(Locale.ROOT))) {
          throw s.error(
              ConfigKeys.NOTIFY_ON,
              "unknown event '" + event + "'; expected " + String.join(", ", NotifyConfig.EVENTS));
        }
      }
      on =
          given.stream()
              .map(e -> e.strip().toLowerCase(Locale.ROOT))
              .collect(java.util.stream.Collectors.toSet());
    }
    return new NotifyConfig(channels, on, message, null);
  }

  private static MessageTemplate template(Section s, Key<?> key, String text)
      throws ConfigException {
    try {
      return MessageTemplate.parse(text);
    } catch (IllegalArgumentException e) {
      throw s.error(key, e.getMessage());
    }
  }

  private static JobAction.Command notifyCommand(Section s) throws ConfigException {
    List<String> argv = s.textList(ConfigKeys.NOTIFY_COMMAND).orElse(null);
    if (argv == null) {
      throw s.error(ConfigKeys.NOTIFY_COMMAND, "expected a list: program and arguments");
    }
    if (argv.isEmpty() || argv.get(0).isBlank()) {
      throw s.error(ConfigKeys.NOTIFY_COMMAND, PROGRAM_NEEDED);
    }
    return new JobAction.Command(argv, Map.of(), null, ConfigKeys.KILL_GRACE.defaultValue());
  }

  /** The one of {@code keys} that {@code s} gives; an error when it gives none or several. */
  static Key<?> exactlyOne(Section s, List<Key<?>> keys, String what) throws ConfigException {
    List<Key<?>> present = keys.stream().filter(s::has).toList();
    if (present.size() == 1) {
      return present.get(0);
    }
    if (present.isEmpty()) {
      throw s.error("no " + what + "; give one of " + names(keys, ", "));
    }
    throw s.error(
        present.get(1), "two " + what + "s (" + names(present, " and ") + "); give exactly one");
  }

  static String names(List<Key<?>> keys, String separator) {
    return String.join(separator, ConfigKeys.names(keys));
  }

  private static Schedule schedule(Section s, ZoneId zone) throws ConfigException {
    Key<?> kind = exactlyOne(s, ConfigKeys.SCHEDULES, "schedule");
    if (s.has(ConfigKeys.OFFSET) && kind != ConfigKeys.JOB_EVERY) {
      throw s.error(
          ConfigKeys.OFFSET, "only applies to an '" + ConfigKeys.JOB_EVERY.name() + "' schedule");
    }
    if (kind == ConfigKeys.JOB_AFTER) {
      return after(s);
    }
    try {
      if (kind == ConfigKeys.JOB_CRON) {
        return Schedule.cron(s.requiredText(ConfigKeys.JOB_CRON), zone);
      }
      return kind == ConfigKeys.JOB_EVERY ? every(s) : Schedule.at(instant(s, zone));
    } catch (IllegalArgumentException e) {
      throw s.error(
          kind == ConfigKeys.JOB_EVERY && s.has(ConfigKeys.OFFSET) ? ConfigKeys.OFFSET : kind,
          e.getMessage());
    }
  }

  /** {@code after: JOB} or {@code after: {job: JOB, on: [succeeded|failed|any, ...]}}. */
  private static Schedule after(Section s) throws ConfigException {
    for (Key<?> other : List.of(ConfigKeys.JOB_JITTER, ConfigKeys.MISFIRE_GRACE)) {
      if (s.has(other)) {
        throw s.error(other, "does not apply to an 'after' job (it has no firings of its own)");
      }
    }
    if (!s.isMapping(ConfigKeys.JOB_AFTER)) {
      return new AfterSchedule(
          upstreamName(s, ConfigKeys.JOB_AFTER, s.requiredText(ConfigKeys.JOB_AFTER)));
    }
    Section a = s.section(ConfigKeys.JOB_AFTER).orElseThrow();
    a.allow(ConfigKeys.AFTER);
    String upstream = upstreamName(a, ConfigKeys.AFTER_JOB, a.requiredText(ConfigKeys.AFTER_JOB));
    Set<AfterSchedule.On> on = EnumSet.noneOf(AfterSchedule.On.class);
    List<String> values = a.textList(ConfigKeys.AFTER_ON).orElse(List.of("succeeded"));
    if (values.isEmpty()) {
      throw a.error(ConfigKeys.AFTER_ON, "must name at least one of succeeded, failed, any");
    }
    for (String v : values) {
      try {
        on.add(AfterSchedule.On.of(v.strip()));
      } catch (IllegalArgumentException e) {
        throw a.error(ConfigKeys.AFTER_ON, "expected succeeded, failed or any, got '" + v + "'");
      }
    }
    return new AfterSchedule(upstream, on);
  }

  private static String upstreamName(Section s, Key<?> key, String name) throws ConfigException {
    String problem = LeaseNames.problem(name.strip());
    if (problem != null) {
      throw s.error(key, "invalid job name '" + name + "': " + problem);
    }
    return name.strip();
  }

  private static Schedule every(Section s) throws ConfigException {
    Duration interval = s.duration(ConfigKeys.JOB_EVERY).orElseThrow();
    if (interval.isZero()) {
      throw s.error(ConfigKeys.JOB_EVERY, "the interval must be greater than 0");
    }
    return Schedule.every(interval, s.value(ConfigKeys.OFFSET));
  }

  private static Instant instant(Section s, ZoneId zone) throws ConfigException {
    return ExclusionReader.instant(s, ConfigKeys.JOB_AT, s.requiredText(ConfigKeys.JOB_AT), zone);
  }

  private static JobAction action(Section s, Duration jobTimeout) throws ConfigException {
    Key<?> kind = exactlyOne(s, ConfigKeys.ACTIONS, "action");
    if (kind != ConfigKeys.JOB_COMMAND) {
      for (Key<?> key : ConfigKeys.COMMAND_ONLY) {
        if (s.has(key)) {
          throw s.error(key, "only applies to command jobs");
        }
      }
    }
    if (kind == ConfigKeys.JOB_COMMAND) {
      return command(s);
    }
    return kind == ConfigKeys.JOB_HTTP
        ? http(s.section(ConfigKeys.JOB_HTTP).orElseThrow(), jobTimeout, "GET")
        : javaClass(s);
  }

  private static JobAction command(Section s) throws ConfigException {
    List<String> argv = s.textList(ConfigKeys.JOB_COMMAND).orElse(null);
    if (argv == null) {
      throw s.error(ConfigKeys.JOB_COMMAND, "expected a list: program and arguments");
    }
    if (argv.isEmpty() || argv.get(0).isBlank()) {
      throw s.error(ConfigKeys.JOB_COMMAND, PROGRAM_NEEDED);
    }
    warnIfPlaceholderIsScript(s);
    Map<String, String> env = s.textMap(ConfigKeys.JOB_ENV);
    for (String key : env.keySet()) {
      if (!key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw s.errorAt(
            ConfigKeys.JOB_ENV.name() + "." + key, "not a valid environment variable name");
      }
    }
    Path workdir = null;
    if (s.has(ConfigKeys.JOB_WORKDIR)) {
      workdir = Path.of(s.requiredText(ConfigKeys.JOB_WORKDIR));
      if (!Files.isDirectory(workdir)) {
        throw s.error(ConfigKeys.JOB_WORKDIR, "no such directory: " + workdir);
      }
    }
    Duration killGrace = s.value(ConfigKeys.KILL_GRACE);
    return new JobAction.Command(argv, env, workdir, killGrace);
  }

  /** Programs that run their {@code -c} (or {@code -e}) argument as code. */
  private static final Pattern INTERPRETER =
      Pattern.compile(
          "(?:.*/)?(?:sh|bash|dash|zsh|ksh|mksh|ash|busybox|python[0-9.]*|perl|ruby|node|pwsh)");

  /** The option whose next argument is the script: {@code -c}, {@code -ec}, {@code -e}. */
  private static final Pattern SCRIPT_OPTION = Pattern.compile("-[a-zA-Z]*[ce]");

  /**
   * A placeholder in the script of {@code ["sh", "-c", "... ${VAR}"]} is replaced before the shell
   * parses the script, so its value becomes code: a value holding {@code ;} or {@code $(...)} runs
   * commands. Not refused (the value may be trusted), but warned about with the safe form.
   */
  private static void warnIfPlaceholderIsScript(Section s) {
    List<String> raw = s.rawTextList(ConfigKeys.JOB_COMMAND);
    if (raw.isEmpty() || !INTERPRETER.matcher(raw.get(0)).matches()) {
      return;
    }
    for (int i = 1; i + 1 < raw.size(); i++) {
      if (!SCRIPT_OPTION.matcher(raw.get(i)).matches()) {
        continue;
      }
      List<String> names = Placeholders.referenced(raw.get(i + 1));
      if (!names.isEmpty()) {
        String name = names.get(0);
        log.warn(
            "{}: ${{}} is pasted into the {} script as code, so a value holding ; $( ) or quotes"
                + " runs as commands; pass it as data instead: env: {{}: \"${{}}\"} and \"${}\""
                + " in the script (see docs/configuration.md, \"Placeholders in a script\")",
            s.pathOf(ConfigKeys.JOB_COMMAND.name() + "[" + (i + 1) + "]"),
            name,
            raw.get(0),
            name,
            name,
            name);
      }
      return;
    }
  }

  /** Headers whose values are scrubbed from every printed line. */
  private static final Pattern CREDENTIAL_HEADER =
      Pattern.compile("(?i)auth|token|key|secret|cookie|password");

  /** An {@code http:} section, of a job or of a notifier. */
  private static JobAction http(Section s, Duration jobTimeout, String defaultMethod)
      throws ConfigException {
    s.allow(ConfigKeys.HTTP);
    String method =
        s.text(ConfigKeys.HTTP_METHOD).orElse(defaultMethod).strip().toUpperCase(Locale.ROOT);
    if (!method.matches("[A-Z]{1,20}")) {
      throw s.error(ConfigKeys.HTTP_METHOD, "expected an HTTP method such as GET or POST");
    }
    String url = s.requiredText(ConfigKeys.HTTP_URL).strip();
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // the reason and position only: the URL may hold credentials
      throw s.error(
          ConfigKeys.HTTP_URL, "not a URL: " + e.getReason() + " at index " + e.getIndex());
    }
    if (uri.getScheme() == null
        || !Set.of("http", "https").contains(uri.getScheme().toLowerCase(Locale.ROOT))
        || uri.getHost() == null) {
      throw s.error(ConfigKeys.HTTP_URL, "expected http://host[:port]/path or https://...");
    }
    Duration timeout =
        s.get(ConfigKeys.HTTP_TIMEOUT)
            .orElse(jobTimeout != null ? jobTimeout : ConfigKeys.HTTP_TIMEOUT.defaultValue());
    Map<String, String> headers = s.textMap(ConfigKeys.HTTP_HEADERS);
    for (Map.Entry<String, String> header : headers.entrySet()) {
      String problem = headerProblem(header.getKey(), header.getValue());
      if (problem != null) {
        throw s.errorAt(ConfigKeys.HTTP_HEADERS.name() + "." + header.getKey(), problem);
      }
    }
    Redaction.registerUrl(url);
    headers.forEach(
        (name, value) -> {
          if (CREDENTIAL_HEADER.matcher(name).find()) {
            Redaction.register(value);
            // "Bearer <token>", "Basic <base64>": the credentials alone, as a server may echo them
            String[] schemeAndCredentials = value.strip().split("\\s+", 2);
            if (schemeAndCredentials.length == 2) {
              Redaction.register(schemeAndCredentials[1]);
            }
          }
        });
    return new JobAction.Http(
        method,
        uri,
        headers,
        s.text(ConfigKeys.HTTP_BODY).orElse(null),
        timeout,
        leaseholdHeaders(s),
        s.value(ConfigKeys.HTTP_FOLLOW_REDIRECTS).equals("any"));
  }

  /** A header name: an HTTP token. */
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");

  /**
   * Why a request could not carry header {@code name} with {@code value}, or {@code null} when it
   * can; asked of the JDK's request builder, the one every run uses, so that a header it would
   * refuse fails {@code validate} instead of every run. The value is never quoted: it may be a
   * credential.
   */
  static String headerProblem(String name, String value) {
    if (!HEADER_NAME.matcher(name).matches()) {
      return "not a header name (letters, digits and !#$%&'*+.^_`|~- only)";
    }
    try {
      HttpRequest.newBuilder().header(name, "1");
    } catch (IllegalArgumentException e) {
      return "set by the HTTP client itself, so it cannot be given here"
          + " (the client sets Connection, Content-Length, Expect, Host and Upgrade)";
    }
    try {
      HttpRequest.newBuilder().header(name, value);
    } catch (IllegalArgumentException e) {
      return "the value holds a line break or another control character";
    }
    return null;
  }

  /** {@code http.leasehold-headers}: the defaults, with the names given replacing theirs. */
  private static Map<String, String> leaseholdHeaders(Section s) throws ConfigException {
    Map<String, String> names =
        new java.util.LinkedHashMap<>(JobAction.Http.DEFAULT_LEASEHOLD_HEADERS);
    for (Map.Entry<String, String> e : s.textMap(ConfigKeys.HTTP_LEASEHOLD_HEADERS).entrySet()) {
      String key = ConfigKeys.HTTP_LEASEHOLD_HEADERS.name() + "." + e.getKey();
      if (!names.containsKey(e.getKey())) {
        throw s.errorAt(key, "unknown; expected job, fire-time, fence or node");
      }
      String name = e.getValue().strip();
      if (!HEADER_NAME.matcher(name).matches()) {
        throw s.errorAt(key, "expected a header name such as X-Fence, got '" + name + "'");
      }
      String problem = headerProblem(name, "1");
      if (problem != null) {
        throw s.errorAt(key, problem);
      }
      names.put(e.getKey(), name);
    }
    Set<String> distinct = new java.util.TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    distinct.addAll(names.values());
    if (distinct.size() < names.size()) {
      throw s.error(ConfigKeys.HTTP_LEASEHOLD_HEADERS, "two of the headers have the same name");
    }
    return names;
  }

  private static JobAction javaClass(Section s) throws ConfigException {
    String name = s.requiredText(ConfigKeys.JOB_CLASS).strip();
    String problem = javaJobProblem(name);
    if (problem != null) {
      throw s.error(ConfigKeys.JOB_CLASS, problem);
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
