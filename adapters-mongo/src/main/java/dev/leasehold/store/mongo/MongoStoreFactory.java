package dev.leasehold.store.mongo;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.util.Set;

/**
 * Opens the {@code mongo} store from {@code store.url} ({@code mongodb://} or {@code
 * mongodb+srv://}, database from the URL path, default {@code leasehold}; TLS and every other
 * driver option pass through the URL), with {@code store.username}/{@code store.password} when
 * given. See {@code docs/stores/mongo.md}.
 */
public final class MongoStoreFactory implements StoreFactory {
  public static final String TYPE = "mongo";

  @Override
  public Set<String> types() {
    return Set.of(TYPE);
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
