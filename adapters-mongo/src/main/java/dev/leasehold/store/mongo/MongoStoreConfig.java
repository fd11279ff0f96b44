package dev.leasehold.store.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCredential;
import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The {@code store} settings of a {@code mongo} store, checked and turned into driver settings.
 *
 * <p>Options ({@code store.options}): {@code collection} (default {@code <key-prefix>locks}),
 * {@code execution-collection} (default {@code <key-prefix>executions}) and {@code
 * history-retention} (default {@code 30d}); {@code store.key-prefix} defaults to {@code
 * leasehold_}.
 */
record MongoStoreConfig(
    ConnectionString connection,
    String database,
    String leaseCollection,
    String executionCollection,
    Duration historyRetention,
    String username,
    char[] password,
    Duration commandTimeout) {

  static final String DEFAULT_DATABASE = "leasehold";
  static final String DEFAULT_PREFIX = "leasehold_";
  static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
  private static final java.util.Set<String> BOOLEAN_OPTIONS =
      java.util.Set.of(
          "tls",
          "ssl",
          "tlsinsecure",
          "tlsallowinvalidhostnames",
          "tlsallowinvalidcertificates",
          "directconnection",
          "retrywrites",
          "retryreads",
          "journal",
          "loadbalanced");
  private static final Pattern COLLECTION = Pattern.compile("[A-Za-z0-9_.-]{1,120}");

  /** Parses without I/O: {@code mongodb+srv} TXT records are not looked up here. */
  static MongoStoreConfig parse(StoreSettings settings) {
    return parse(settings, (name, type) -> List.of());
  }

  /** Parses for {@link MongoStoreFactory#open}: {@code mongodb+srv} options come from DNS TXT. */
  static MongoStoreConfig parseForConnecting(StoreSettings settings) {
    return parse(settings, null);
  }

  private static MongoStoreConfig parse(StoreSettings settings, com.mongodb.spi.dns.DnsClient dns) {
    String url = settings.url();
    if (url == null || !(url.startsWith("mongodb://") || url.startsWith("mongodb+srv://"))) {
      throw new IllegalArgumentException(
          "store.url: expected mongodb://host[:port][,host...]/database[?options] or"
              + " mongodb+srv://host/database[?options]");
    }
    ConnectionString cs;
    try {
      cs = dns == null ? new ConnectionString(url) : new ConnectionString(url, dns);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("store.url: " + redact(e.getMessage(), settings), e);
    } catch (com.mongodb.MongoException e) {
      // only when connecting: the TXT record of a mongodb+srv:// host could not be read
      throw new dev.leasehold.core.lease.LeaseStoreException(
          "MongoDB DNS lookup for store.url failed: " + redact(e.getMessage(), settings), e);
    }
    checkBooleanOptions(url);
    if (settings.username() != null && cs.getUsername() != null) {
      throw new IllegalArgumentException(
          "store.username: a user is given both in store.url and in store.username; keep one");
    }
    if (settings.password() != null && settings.username() == null) {
      throw new IllegalArgumentException("store.password: given without store.username");
    }
    String prefix = settings.keyPrefix() == null ? DEFAULT_PREFIX : settings.keyPrefix();
    String leases = collection(settings, "collection", prefix + "locks");
    String executions = collection(settings, "execution-collection", prefix + "executions");
    if (leases.equals(executions)) {
      throw new IllegalArgumentException(
          "store.options.execution-collection: must differ from the lease collection " + leases);
    }
    Duration retention = MongoStoreFactory.HISTORY_RETENTION.value(settings);
    if (settings.commandTimeout().toMillis() < 1) {
      throw new IllegalArgumentException("command timeout must be at least 1ms");
    }
    String database = cs.getDatabase() == null ? DEFAULT_DATABASE : cs.getDatabase();
    char[] password = settings.password() == null ? null : settings.password().toCharArray();
    return new MongoStoreConfig(
        cs,
        database,
        leases,
        executions,
        retention,
        settings.username(),
        password,
        settings.commandTimeout());
  }

  /**
   * The driver ignores a boolean option it cannot read (with a log line), so {@code tls=ture} would
   * silently mean no TLS. These options must say true or false.
   */
  private static void checkBooleanOptions(String url) {
    int q = url.indexOf('?');
    if (q < 0) {
      return;
    }
    for (String pair : url.substring(q + 1).split("[&;]")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      if (BOOLEAN_OPTIONS.contains(key.toLowerCase(java.util.Locale.ROOT))
          && !value.equalsIgnoreCase("true")
          && !value.equalsIgnoreCase("false")) {
        throw new IllegalArgumentException(
            "store.url: option " + key + " must be true or false, got '" + value + "'");
      }
    }
  }

  private static String collection(StoreSettings settings, String option, String fallback) {
    String name = settings.options().getOrDefault(option, fallback);
    if (!COLLECTION.matcher(name).matches() || name.startsWith("system.")) {
      throw new IllegalArgumentException(
          "store."
              + (settings.options().containsKey(option) ? "options." + option : "key-prefix")
              + ": '"
              + name
              + "' is not a usable collection name ([A-Za-z0-9_.-], not system.*)");
    }
    return name;
  }

  private static String redact(String message, StoreSettings settings) {
    // the driver may quote the URL, password included
    return message == null
        ? "not a valid MongoDB connection string"
        : message.replace(
            settings.url(), dev.leasehold.core.store.Redaction.redactUrl(settings.url()));
  }

  /**
   * Driver settings. Every timeout is the command timeout, replacing any given in the URL, so a
   * dead or hung server turns into an exception well within a lease: server selection (no reachable
   * primary), connect, socket read. Writes use {@code w:majority, j:true} (also replacing the URL's
   * write concern): on a replica set an acknowledged claim is on a majority's journals and survives
   * a failover; on a standalone {@code j:true} at least survives a crash. The server waits for that
   * at most half the command timeout, so it reports a write concern timeout before the socket gives
   * up. Reads use read concern majority (see {@link MongoLeaseStore}).
   */
  MongoClientSettings clientSettings() {
    long ms = commandTimeout.toMillis();
    MongoClientSettings.Builder builder =
        MongoClientSettings.builder()
            .applyConnectionString(connection)
            .applicationName("leasehold")
            .applyToClusterSettings(b -> b.serverSelectionTimeout(ms, TimeUnit.MILLISECONDS))
            .applyToSocketSettings(
                b ->
                    b.connectTimeout((int) Math.min(ms, Integer.MAX_VALUE), TimeUnit.MILLISECONDS)
                        .readTimeout((int) Math.min(ms, Integer.MAX_VALUE), TimeUnit.MILLISECONDS))
            .writeConcern(
                WriteConcern.MAJORITY
                    .withJournal(true)
                    .withWTimeout(wtimeoutMillis(), TimeUnit.MILLISECONDS))
            .readConcern(ReadConcern.MAJORITY);
    if (username != null) {
      builder.credential(MongoCredential.createCredential(username, authSource(), password));
    }
    return builder.build();
  }

  /** How long the server may wait for a majority before it answers with a write concern error. */
  long wtimeoutMillis() {
    return Math.max(1, commandTimeout.toMillis() / 2);
  }

  /** The MongoDB rule: {@code authSource}, else the database in the URL, else {@code admin}. */
  private String authSource() {
    String query = connection.getConnectionString();
    int q = query.indexOf('?');
    if (q >= 0) {
      for (String pair : query.substring(q + 1).split("[&;]")) {
        if (pair.regionMatches(true, 0, "authSource=", 0, 11)) {
          return java.net.URLDecoder.decode(
              pair.substring(11), java.nio.charset.StandardCharsets.UTF_8);
        }
      }
    }
    return connection.getDatabase() == null ? "admin" : connection.getDatabase();
  }

  @Override
  public String toString() {
    return "MongoStoreConfig[url="
        + dev.leasehold.core.store.Redaction.redactUrl(connection.getConnectionString())
        + ", database="
        + database
        + ", collection="
        + leaseCollection
        + "]";
  }
}
