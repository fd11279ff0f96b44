package dev.leasehold.app.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.leasehold.core.schedule.Durations;
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

  /** Where the embedded H2 store lives when {@code store.url} is not given. */
  public static final String DEFAULT_H2_URL = "jdbc:h2:file:./data/leasehold";

  public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
  public static final Duration MAX_COMMAND_TIMEOUT = Duration.ofSeconds(5);
  public static final int DEFAULT_ADMIN_PORT = 8077;
  public static final String LOG_FORMAT_VARIABLE = "LEASEHOLD_LOG_FORMAT";

  private static final Set<String> TOP = ConfigKeys.names(ConfigKeys.TOP);
  private static final Set<String> STORE = ConfigKeys.names(ConfigKeys.STORE);
  private static final Set<String> LEASE = ConfigKeys.names(ConfigKeys.LEASE);
  private static final Set<String> ADMIN = ConfigKeys.names(ConfigKeys.ADMIN);
  private static final Set<String> LOG = ConfigKeys.names(ConfigKeys.LOG);
  private static final Set<String> LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

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
    root.allow(TOP);

    // blank means "not set", so ${NODE:-} falls back to the default node id
    String node = root.text("node").filter(n -> !n.isBlank()).orElse(defaultNode);
    if (node.isBlank() || node.length() > 200) {
      throw root.error("node", "must be 1 to 200 characters");
    }
    ZoneId zone = zone(root, "zone").orElse(ZoneOffset.UTC);
    Duration shutdownGrace = root.duration("shutdown-grace").orElse(DEFAULT_SHUTDOWN_GRACE);

    Section lease = root.section("lease").orElse(null);
    Duration ttl = DEFAULT_TTL;
    Duration renewEvery = null;
    if (lease != null) {
      lease.allow(LEASE);
      ttl = lease.positiveDuration("ttl").orElse(DEFAULT_TTL);
      renewEvery = lease.positiveDuration("renew-every").orElse(null);
      if (renewEvery != null && renewEvery.compareTo(ttl) >= 0) {
        throw lease.error("renew-every", "must be less than the ttl " + ttl(ttl));
      }
    }

    JobReader jobs = new JobReader(zone, ttl, renewEvery);
    List<Section> jobSections = root.sections("jobs");
    if (jobSections.isEmpty()) {
      throw root.error("jobs", "at least one job is required");
    }
    List<JobConfig> jobList = jobs.readAll(jobSections);

    StoreSettings store = store(root, jobList);
    AdminConfig admin = admin(root);
    LogConfig log = log(root);
    return new DaemonConfig(name, node, shutdownGrace, store, admin, log, jobList);
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
      tree = YAML.readTree(text);
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

  static Optional<ZoneId> zone(Section section, String key) throws ConfigException {
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
    Section store = root.section("store").orElse(null);
    if (store == null) {
      return new StoreSettings(
          "h2", DEFAULT_H2_URL, List.of(), null, null, null, commandTimeout(jobs), Map.of());
    }
    store.allow(STORE);
    String type = store.text("type").orElse("h2").strip().toLowerCase(Locale.ROOT);
    String url = store.text("url").orElse(type.equals("h2") ? DEFAULT_H2_URL : null);
    List<String> urls = store.textList("urls").orElse(List.of());
    // blank means "not set", so ${DB_PASSWORD:-} can leave a credential out
    String password = store.text("password").filter(p -> !p.isBlank()).orElse(null);
    if (store.has("password-file")) {
      if (password != null) {
        throw store.error("password-file", "give either password or password-file, not both");
      }
      password = passwordFile(store);
    }
    Duration commandTimeout =
        store.positiveDuration("command-timeout").orElse(commandTimeout(jobs));
    // whatever prints text (logs, errors) scrubs these, even where a driver quotes them
    Redaction.register(password);
    Redaction.registerUrl(url);
    urls.forEach(Redaction::registerUrl);
    return new StoreSettings(
        type,
        url,
        urls,
        store.text("username").filter(u -> !u.isBlank()).orElse(null),
        password,
        store.text("key-prefix").orElse(null),
        commandTimeout,
        store.textMap("options"));
  }

  private static String passwordFile(Section store) throws ConfigException {
    String file = store.requiredText("password-file");
    try {
      warnIfOthersMayRead(Path.of(file));
      return Files.readString(Path.of(file)).strip();
    } catch (NoSuchFileException e) {
      throw store.error("password-file", "no such file: " + file);
    } catch (IOException | RuntimeException e) {
      throw store.error("password-file", "cannot read " + file + ": " + e.getMessage());
    }
  }

  /**
   * Container secrets are commonly mounted 0444/0644 where only the container sees them, so a
   * readable file is not refused; on a shared machine it should be 0600.
   */
  private static void warnIfOthersMayRead(Path file) throws IOException {
    if (!Files.getFileStore(file).supportsFileAttributeView("posix")) {
      return;
    }
    Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
    if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)) {
      log.warn(
          "store.password-file {} can be read by {} (mode {}); make it 0600 unless only this"
              + " container sees it",
          file,
          p.contains(PosixFilePermission.OTHERS_READ) ? "every user" : "its group",
          PosixFilePermissions.toString(p));
    }
  }

  /** A store call must end well within a renew interval, so a hung call cannot outlive a lease. */
  private static Duration commandTimeout(List<JobConfig> jobs) {
    Duration shortest = MAX_COMMAND_TIMEOUT;
    for (JobConfig job : jobs) {
      Duration renew = job.renewEvery() != null ? job.renewEvery() : job.ttl().dividedBy(3);
      if (renew.compareTo(shortest) < 0) {
        shortest = renew;
      }
    }
    return shortest.toMillis() < 100 ? Duration.ofMillis(100) : shortest;
  }

  private static AdminConfig admin(Section root) throws ConfigException {
    Section admin = root.section("admin").orElse(null);
    if (admin == null) {
      return null;
    }
    admin.allow(ADMIN);
    String listen = admin.text("listen").orElse("127.0.0.1:" + DEFAULT_ADMIN_PORT).strip();
    String token = admin.text("token").filter(t -> !t.isBlank()).orElse(null);
    Redaction.register(token);
    return new AdminConfig(address(admin, listen), token);
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
          "listen", "expected host:port such as 127.0.0.1:8077, got '" + listen + "'");
    }
  }

  private LogConfig log(Section root) throws ConfigException {
    Section log = root.section("log").orElse(null);
    String format = "text";
    String level = LogConfig.DEFAULT.level();
    if (log != null) {
      log.allow(LOG);
      format = log.text("format").orElse(format).strip().toLowerCase(Locale.ROOT);
      if (!format.equals("text") && !format.equals("json")) {
        throw log.error("format", "expected text or json, got '" + format + "'");
      }
      level = log.text("level").orElse(level).strip().toUpperCase(Locale.ROOT);
      if (!LEVELS.contains(level)) {
        throw log.error("level", "expected one of TRACE, DEBUG, INFO, WARN, ERROR");
      }
    }
    String fromEnv = env.get(LOG_FORMAT_VARIABLE);
    if (fromEnv != null && !fromEnv.isBlank()) {
      format = fromEnv.strip().toLowerCase(Locale.ROOT);
      if (!format.equals("text") && !format.equals("json")) {
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
