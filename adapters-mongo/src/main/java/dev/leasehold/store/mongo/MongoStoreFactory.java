package dev.leasehold.store.mongo;

import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreOption;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Opens the {@code mongo} store from {@code store.url} ({@code mongodb://} or {@code
 * mongodb+srv://}, database from the URL path, default {@code leasehold}; TLS and every other
 * driver option pass through the URL), with {@code store.username}/{@code store.password} when
 * given. See {@code docs/stores/mongo.md}.
 */
public final class MongoStoreFactory implements StoreFactory {
  public static final String TYPE = "mongo";

  /** The lease collection; its name is checked with the key prefix's ({@link MongoStoreConfig}). */
  static final StoreOption<String> COLLECTION =
      new StoreOption<>(
          "collection", text -> text, null, "<key-prefix>locks", "The collection of the leases.");

  static final StoreOption<String> EXECUTION_COLLECTION =
      new StoreOption<>(
          "execution-collection",
          text -> text,
          null,
          "<key-prefix>executions",
          "The collection of the execution history; not the lease collection.");

  /** How long the TTL index keeps a history record. */
  static final StoreOption<Duration> HISTORY_RETENTION =
      new StoreOption<>(
          "history-retention",
          text -> {
            Duration d = Durations.parse(text);
            if (d.getSeconds() < 1) {
              throw new IllegalArgumentException("must be at least 1s, got " + text);
            }
            return d;
          },
          MongoStoreConfig.DEFAULT_RETENTION,
          "30d",
          "History records older than this are removed by a TTL index.");

  @Override
  public Set<String> types() {
    return Set.of(TYPE);
  }

  @Override
  public List<StoreOption<?>> options() {
    return List.of(COLLECTION, EXECUTION_COLLECTION, HISTORY_RETENTION);
  }

  @Override
  public Map<String, String> logLevels() {
    return Map.of("org.mongodb", "WARN");
  }

  @Override
  public Set<String> driverPackages() {
    return Set.of("com.mongodb", "org.bson");
  }

  @Override
  public String validate(StoreSettings settings) {
    try {
      MongoStoreConfig.parse(settings);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /**
   * Creates the client without waiting for a server (for {@code mongodb+srv://} the TXT record is
   * read here). Throws {@link IllegalArgumentException} for bad settings.
   */
  @Override
  public StoreBackend open(StoreSettings settings) {
    return new MongoStoreBackend(MongoStoreConfig.parseForConnecting(settings));
  }
}
