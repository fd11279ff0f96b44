package dev.leasehold.store.mongo;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.job.ExecutionLogContract;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The history kit against mongo-java-server, the in-process wire-compatible test server (not a real
 * mongod), one fresh database per test class; each backend is a new client.
 */
class MongoExecutionLogContractTest extends ExecutionLogContract {
  private static WireServer server;
  private static String database;

  @BeforeAll
  static void startServer() {
    server = WireServer.start();
    database = "history_" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected StoreBackend createBackend() {
    return new MongoStoreFactory().open(WireServer.settings(server.url(database), Map.of()));
  }
}
