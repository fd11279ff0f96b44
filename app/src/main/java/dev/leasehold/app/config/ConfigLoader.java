package dev.leasehold.app.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.scheduler.RetryPolicy;
import dev.leasehold.core.store.Namespace;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads and validates a configuration file: the one validation path shared by {@code run}, {@code
 * validate}, {@code status}, {@code history} and {@code trigger}, so they all give the same
 * verdict. It does no I/O beyond reading the file (and a {@code store.password-file}). The store
 * section is checked further by the chosen store factory ({@code StoreFactory.validate}).
 */
public final class ConfigLoader {
  private static final Logger log = LoggerFactory.getLogger(ConfigLoader.class);

  public static final String LOG_FORMAT_VARIABLE = "LEASEHOLD_LOG_FORMAT";

  private final Map<String, String> env;
  private final String defaultNode;

  /**
   * @param env the environment placeholders are resolved from
   * @param defaultNode the node id used when the file sets none
   */
  public ConfigLoader(Map<String, String> env, String defaultNode) {
    this.env = new HashMap<>(env);
    this.defaultNode = Objects.requireNonNull(defaultNode);
  }

  public DaemonConfig load(Path file) throws ConfigException {
    String name = file.toString();
    Section root = Section.root(name, parse(name, read(file)), new Placeholders(env));
    ConfigErrors errors = new ConfigErrors();
    errors.collect(() -> root.allow(ConfigKeys.TOP));

    // blank means "not set", so ${NODE:-} falls back to the default node id
    String node =
        errors
            .read(() -> root.text(ConfigKeys.NODE))
            .flatMap(n -> n)
            .filter(n -> !n.isBlank())
            .orElse(defaultNode);
    if (node.isBlank() || node.length() > 200) {
      errors.add(root.error(ConfigKeys.NODE, "must be 1 to 200 characters"));
    }
    // blank means "not set", as for node
    String namespace =
        errors
            .read(() -> root.text(ConfigKeys.NAMESPACE))
            .flatMap(n -> n)
            .filter(n -> !n.isBlank())
            .orElse(null);
    if (namespace != null && Namespace.problem(namespace) != null) {
      errors.add(root.error(ConfigKeys.NAMESPACE, Namespace.problem(namespace)));
      namespace = null;
    }
    if (node.length() <= 200 && node.length() > Namespace.of(namespace).maxNodeLength()) {
      errors.add(
          root.error(
              ConfigKeys.NODE,
              "must be at most "
                  + Namespace.of(namespace).maxNodeLength()
                  + " characters in namespace '"
                  + namespace
                  + "'"));
    }
    ZoneId zone = errors.read(() -> root.value(ConfigKeys.ZONE)).orElse(ZoneOffset.UTC);
    Duration shutdownGrace =
        errors
            .read(() -> root.value(ConfigKeys.SHUTDOWN_GRACE))
            .orElse(ConfigKeys.SHUTDOWN_GRACE.defaultValue());

    Duration[] lease = {ConfigKeys.TTL.defaultValue(), ConfigKeys.RENEW_EVERY.defaultValue()};
    errors.collect(() -> lease(root, lease));
    Duration ttl = lease[0];
    Duration renewEvery = lease[1];

    NotifyConfig notify =
        errors
            .read(
                () -> {
                  Optional<Section> section = root.section(ConfigKeys.TOP_NOTIFY);
                  return section.isPresent() ? JobReader.notify(section.get()) : null;
                })
            .orElse(null);
    RetryPolicy retry =
        errors
            .read(
                () -> {
                  Optional<Section> section = root.section(ConfigKeys.TOP_RETRY);
                  return section.isPresent()
                      ? JobReader.retry(section.get(), RetryPolicy.NONE)
                      : RetryPolicy.NONE;
                })
            .orElse(RetryPolicy.NONE);
    ExclusionReader calendars =
        errors
            .read(() -> ExclusionReader.calendars(root, errors))
            .orElseGet(() -> ExclusionReader.none());
    JobReader jobs = new JobReader(zone, ttl, renewEvery, notify, retry, calendars);
    List<Section> jobSections = errors.read(() -> root.sections(ConfigKeys.TOP_JOBS)).orElse(null);
    List<JobConfig> jobList = new ArrayList<>();
    List<Section> readSections = new ArrayList<>();
    if (jobSections != null && jobSections.isEmpty()) {
      errors.add(root.error(ConfigKeys.TOP_JOBS, "at least one job is required"));
    } else if (jobSections != null) {
      jobs.readAll(jobSections, jobList, readSections, errors);
    }
    Map<String, Integer> groups =
        errors.read(() -> GroupReader.read(root, readSections, jobList)).orElse(Map.of());
    Namespace scope = Namespace.of(namespace);
    for (int i = 0; i < jobList.size(); i++) {
      String jobName = jobList.get(i).name();
      if (jobName.length() > scope.maxNameLength()) {
        errors.add(
            readSections
                .get(i)
                .error(
                    ConfigKeys.JOB_NAME,
                    "invalid job name '" + jobName + "': " + scope.nameProblem(jobName)));
      }
    }

    Optional<List<CheckConfig>> checks =
        errors.read(
            () -> new CheckReader(zone, notify).readAll(root.sections(ConfigKeys.TOP_CHECKS)));
    Optional<StoreSettings> store = errors.read(() -> store(root, jobList));
    Optional<HistoryRetention> history = errors.read(() -> history(root));
    Optional<AdminConfig> admin =
        errors.read(() -> Optional.ofNullable(admin(root))).flatMap(a -> a);
    Optional<LogConfig> log = errors.read(() -> log(root));
    if (checks.isPresent() && admin.isPresent()) {
      shippedPingKeys(root, checks.get(), admin.get(), errors);
    }
    errors.throwIfAny();
    return new DaemonConfig(
        name,
        node,
        namespace,
        shutdownGrace,
        store.orElseThrow(),
        history.orElseThrow(),
        admin.orElse(null),
        log.orElseThrow(),
        jobList,
        groups,
        checks.orElseThrow());
  }

  /**
   * A ping key shipped in an example (or a {@code change-me} one) is known to everyone who read it:
   * refused once the admin endpoint listens beyond loopback, where others could ping with it.
   */
  private static void shippedPingKeys(
      Section root, List<CheckConfig> checks, AdminConfig admin, ConfigErrors errors) {
    String host = admin.listen().getHostString();
    if (host.equals("localhost")
        || host.startsWith("127.")
        || host.equals("::1")
        || host.equals("0:0:0:0:0:0:0:1")) {
      return;
    }
    for (int i = 0; i < checks.size(); i++) {
      CheckConfig check = checks.get(i);
      if (ShippedSecrets.isShipped(check.pingKey())) {
        int at = i;
        errors.read(
            () -> {
              throw root.sections(ConfigKeys.TOP_CHECKS)
                  .get(at)
                  .error(
                      ConfigKeys.CHECK_PING_KEY,
                      "check '"
                          + check.definition().name()
                          + "' uses the example's ping key while admin.listen is beyond loopback;"
                          + " set a key of your own, e.g. the output of: openssl rand -hex 16");
            });
      }
    }
  }

  /** The {@code lease} section into {@code lease} (ttl, renew-every), when there is one. */
  private static void lease(Section root, Duration[] lease) throws ConfigException {
    Section section = root.section(ConfigKeys.TOP_LEASE).orElse(null);
    if (section == null) {
      return;
    }
    section.allow(ConfigKeys.LEASE);
    Duration ttl = section.value(ConfigKeys.TTL);
    Duration renewEvery = section.value(ConfigKeys.RENEW_EVERY);
    if (renewEvery != null && renewEvery.compareTo(ttl) >= 0) {
      throw section.error(ConfigKeys.RENEW_EVERY, "must be less than the ttl " + ttl(ttl));
    }
    lease[0] = ttl;
    lease[1] = renewEvery;
  }

  private static String read(Path file) throws ConfigException {
    String name = file.toString();
    try {
      if (Files.isDirectory(file)) {
        throw new ConfigException(name, null, "is a directory, not a configuration file");
      }
      return Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(name, null, "no such file");
    } catch (AccessDeniedException e) {
      throw new ConfigException(name, null, "permission denied");
    } catch (IOException e) {
      throw new ConfigException(name, null, "cannot read: " + e.getMessage());
    }
  }

  private static JsonNode parse(String name, String text) throws ConfigException {
    JsonNode tree;
    try {
      tree = YamlTree.read(text);
    } catch (JsonProcessingException e) {
      if (e.getCause() instanceof MarkedYAMLException yaml && yaml.getProblemMark() != null) {
        Mark mark = yaml.getProblemMark();
        String context = yaml.getContext() == null ? "" : " (" + yaml.getContext() + ")";
        throw new ConfigException(
            name,
            "line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1),
            "YAML syntax error: " + yaml.getProblem() + context);
      }
      JsonLocation at = e.getLocation();
      String where = at == null || at.getLineNr() < 1 ? null : "line " + at.getLineNr();
      throw new ConfigException(name, where, "YAML error: " + firstLine(e));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw new ConfigException(name, null, "the file is empty; it needs at least 'jobs'");
    }
    return tree;
  }

  private static String firstLine(JsonProcessingException e) {
    String message = Objects.requireNonNullElse(e.getOriginalMessage(), "unreadable");
    return message.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
  }

  static Optional<ZoneId> zone(Section section, ConfigKeys.Key<ZoneId> key) throws ConfigException {
    Optional<String> id = section.text(key);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(ZoneId.of(id.get()));
    } catch (DateTimeException e) {
      throw section.error(key, "unknown zone '" + id.get() + "'; expected e.g. UTC, Asia/Shanghai");
    }
  }

  private StoreSettings store(Section root, List<JobConfig> jobs) throws ConfigException {
    // the store and URL of a file that names none come from the store adapters
    StoreCatalog stores = StoreCatalog.discovered();
    Section store = root.section(ConfigKeys.TOP_STORE).orElse(null);
    if (store == null) {
      String type = defaultStoreType(root, stores);
      return new StoreSettings(
          type,
          stores.defaultUrl(type),
          List.of(),
          null,
          null,
          null,
          commandTimeout(jobs),
          Map.of());
    }
    store.allow(ConfigKeys.STORE);
    Optional<String> given = store.text(ConfigKeys.STORE_TYPE);
    String type =
        given.isPresent()
            ? given.get().strip().toLowerCase(Locale.ROOT)
            : defaultStoreType(store, stores);
    String url = store.text(ConfigKeys.STORE_URL).orElse(stores.defaultUrl(type));
    List<String> urls = store.textList(ConfigKeys.STORE_URLS).orElse(List.of());
    // blank means "not set", so ${DB_PASSWORD:-} can leave a credential out
    String password = store.text(ConfigKeys.STORE_PASSWORD).filter(p -> !p.isBlank()).orElse(null);
    if (store.has(ConfigKeys.STORE_PASSWORD_FILE)) {
      if (password != null) {
        throw store.error(
            ConfigKeys.STORE_PASSWORD_FILE, "give either password or password-file, not both");
      }
      password = passwordFile(store);
    }
    Duration commandTimeout = store.get(ConfigKeys.COMMAND_TIMEOUT).orElse(commandTimeout(jobs));
    // whatever prints text (logs, errors) scrubs these, even where a driver quotes them
    Redaction.register(password);
    Redaction.registerUrl(url);
    urls.forEach(Redaction::registerUrl);
    return new StoreSettings(
        type,
        url,
        urls,
        store.text(ConfigKeys.STORE_USERNAME).filter(u -> !u.isBlank()).orElse(null),
        password,
        store.text(ConfigKeys.STORE_KEY_PREFIX).orElse(null),
        commandTimeout,
        store.textMap(ConfigKeys.STORE_OPTIONS));
  }

  private static String defaultStoreType(Section at, StoreCatalog stores) throws ConfigException {
    String type = stores.defaultType();
    if (type == null) {
      throw new ConfigException(
          at.file(),
          KeyPaths.STORE_TYPE,
          "required: no store adapter on the classpath offers a default; known: "
              + (stores.types().isEmpty() ? "none" : String.join(", ", stores.types())));
    }
    return type;
  }

  private static HistoryRetention history(Section root) throws ConfigException {
    Optional<Section> store = root.section(ConfigKeys.TOP_STORE);
    Optional<Section> history =
        store.isPresent() ? store.get().section(ConfigKeys.STORE_HISTORY) : Optional.empty();
    if (history.isEmpty()) {
      return HistoryRetention.DEFAULT;
    }
    Section h = history.get();
    h.allow(ConfigKeys.HISTORY);
    Duration keep = h.value(ConfigKeys.KEEP);
    if (keep.compareTo(HistoryRetention.MIN_KEEP) < 0) {
      throw h.error(
          ConfigKeys.KEEP, "must be at least 1m, got " + h.text(ConfigKeys.KEEP).orElse(""));
    }
    return new HistoryRetention(keep, h.value(ConfigKeys.MAX_PER_JOB));
  }

  private static String passwordFile(Section store) throws ConfigException {
    return secretFile(store, ConfigKeys.STORE_PASSWORD_FILE, "store.password-file");
  }

  /** The stripped content of the file a key names ({@code password-file}, {@code token-file}). */
  private static String secretFile(Section section, ConfigKeys.Key<String> key, String field)
      throws ConfigException {
    String file = section.requiredText(key);
    try {
      warnIfOthersMayRead(Path.of(file), field);
      return Files.readString(Path.of(file)).strip();
    } catch (NoSuchFileException e) {
      throw section.error(key, "no such file: " + file);
    } catch (IOException | RuntimeException e) {
      throw section.error(key, "cannot read " + file + ": " + e.getMessage());
    }
  }

  /**
   * Container secrets are commonly mounted 0444/0644 where only the container sees them, so a
   * readable file is not refused; on a shared machine it should be 0600.
   */
  private static void warnIfOthersMayRead(Path file, String field) throws IOException {
    if (!Files.getFileStore(file).supportsFileAttributeView("posix")) {
      return;
    }
    Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
    if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)) {
      log.warn(
          "{} {} can be read by {} (mode {}); make it 0600 unless only this container sees it",
          field,
          file,
          p.contains(PosixFilePermission.OTHERS_READ) ? "every user" : "its group",
          PosixFilePermissions.toString(p));
    }
  }

  /** A store call must end well within a renew interval, so a hung call cannot outlive a lease. */
  private static Duration commandTimeout(List<JobConfig> jobs) {
    Duration shortest = ConfigKeys.COMMAND_TIMEOUT.defaultValue();
    for (JobConfig job : jobs) {
      Duration renew =
          job.renewEvery() != null ? job.renewEvery() : LeaseDefaults.renewEvery(job.ttl());
      if (renew.compareTo(shortest) < 0) {
        shortest = renew;
      }
    }
    return shortest.toMillis() < 100 ? Duration.ofMillis(100) : shortest;
  }

  private static AdminConfig admin(Section root) throws ConfigException {
    Section admin = root.section(ConfigKeys.TOP_ADMIN).orElse(null);
    if (admin == null) {
      return null;
    }
    admin.allow(ConfigKeys.ADMIN);
    String listen = admin.value(ConfigKeys.LISTEN).strip();
    String token = admin.text(ConfigKeys.ADMIN_TOKEN).filter(t -> !t.isBlank()).orElse(null);
    // blank means "not set", so ${LEASEHOLD_ADMIN_TOKEN_FILE:-} can leave it out
    boolean fromFile =
        admin.text(ConfigKeys.ADMIN_TOKEN_FILE).filter(f -> !f.isBlank()).isPresent();
    if (fromFile) {
      if (token != null) {
        throw admin.error(ConfigKeys.ADMIN_TOKEN_FILE, "give either token or token-file, not both");
      }
      token = secretFile(admin, ConfigKeys.ADMIN_TOKEN_FILE, "admin.token-file");
    }
    Redaction.register(token);
    if (token != null && AdminConfig.problem(token) != null) {
      throw admin.error(
          fromFile ? ConfigKeys.ADMIN_TOKEN_FILE : ConfigKeys.ADMIN_TOKEN,
          AdminConfig.problem(token));
    }
    String readToken =
        admin.text(ConfigKeys.ADMIN_READ_TOKEN).filter(t -> !t.isBlank()).orElse(null);
    Redaction.register(readToken);
    if (readToken != null) {
      if (AdminConfig.problem(readToken) != null) {
        throw admin.error(ConfigKeys.ADMIN_READ_TOKEN, AdminConfig.problem(readToken));
      }
      if (readToken.equals(token)) {
        throw admin.error(
            ConfigKeys.ADMIN_READ_TOKEN, "must differ from the token, else it could change things");
      }
    }
    List<String> hosts = admin.textList(ConfigKeys.ADMIN_ALLOWED_HOSTS).orElse(List.of());
    for (String host : hosts) {
      if (host.isBlank() || host.strip().contains(" ") || host.contains("/")) {
        throw admin.error(
            ConfigKeys.ADMIN_ALLOWED_HOSTS,
            "expected host names such as leasehold.internal, got '" + host + "'");
      }
    }
    return new AdminConfig(address(admin, listen), token, readToken, hosts);
  }

  private static InetSocketAddress address(Section admin, String listen) throws ConfigException {
    int colon = listen.lastIndexOf(':');
    String host = colon < 0 ? "127.0.0.1" : listen.substring(0, colon);
    String port = colon < 0 ? listen : listen.substring(colon + 1);
    if (host.isEmpty()) {
      host = "127.0.0.1";
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int p = Integer.parseInt(port);
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return InetSocketAddress.createUnresolved(host, p);
    } catch (NumberFormatException e) {
      throw admin.error(
          ConfigKeys.LISTEN, "expected host:port such as 127.0.0.1:8077, got '" + listen + "'");
    }
  }

  private LogConfig log(Section root) throws ConfigException {
    Section log = root.section(ConfigKeys.TOP_LOG).orElse(null);
    String format = ConfigKeys.FORMAT.defaultValue();
    String level = ConfigKeys.LEVEL.defaultValue();
    if (log != null) {
      log.allow(ConfigKeys.LOG);
      format = log.value(ConfigKeys.FORMAT);
      level = log.value(ConfigKeys.LEVEL);
    }
    String fromEnv = env.get(LOG_FORMAT_VARIABLE);
    if (fromEnv != null && !fromEnv.isBlank()) {
      format = ConfigKeys.FORMAT.normalised(fromEnv);
      if (!ConfigKeys.FORMAT.values().contains(format)) {
        throw new ConfigException(
            root.file(),
            "environment " + LOG_FORMAT_VARIABLE,
            "expected text or json, got '" + fromEnv + "'");
      }
    }
    return new LogConfig(format.equals("json"), level);
  }

  static String ttl(Duration d) {
    return Durations.format(d);
  }
}
