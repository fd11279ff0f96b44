package dev.leasehold.store.mongo;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * mongo-java-server with its in-memory backend, started in this JVM on a random loopback port. It
 * speaks the MongoDB wire protocol but is a test server, not a real mongod (none can be installed
 * on these machines): no replication, no TTL deletion, no pipeline updates.
 */
final class WireServer implements AutoCloseable {
  private final MongoServer server;
  private final int port;

  private WireServer() {
    server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", 0);
    port = server.getLocalAddress().getPort();
  }

  static WireServer start() {
    return new WireServer();
  }

  int port() {
    return port;
  }

  String url(String database) {
    return "mongodb://127.0.0.1:" + port + "/" + database;
  }

  /** Settings for a store on {@code database}, with a short command timeout. */
  StoreSettings settings(String database) {
    return settings(url(database), Map.of());
  }

  static StoreSettings settings(String url, Map<String, String> options) {
    return settings(url, Duration.ofSeconds(2), options);
  }

  static StoreSettings settings(String url, Duration commandTimeout, Map<String, String> options) {
    return new StoreSettings("mongo", url, List.of(), null, null, null, commandTimeout, options);
  }

  /** A new client with every part of the store, on {@code database}. */
  dev.leasehold.core.store.StoreBackend newBackend(String database) {
    return new MongoStoreBackend(MongoStoreConfig.parse(settings(database)));
  }

  MongoLeaseStore newLeaseStore(String database) {
    return MongoStoreBackend.leaseStoreOwningItsClient(MongoStoreConfig.parse(settings(database)));
  }

  @Override
  public void close() {
    server.shutdownNow();
  }
}
