package dev.leasehold.store.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.DeletedRecordCases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The deleted-record cases on {@link MongoLeaseStore} against mongo-java-server (the in-process
 * wire-compatible test server; no real mongod can be installed on these machines): the operator
 * deletes the lease document with the driver, {@code deleteOne({_id: "JOB"})}, fence and watermark
 * with it; the high-water collection {@code <collection>.fences} stays.
 */
class MongoDeletedRecordTest extends DeletedRecordCases {
  private static final String DATABASE = "deleted";
  private static WireServer server;

  @BeforeAll
  static void startServer() {
    server = WireServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected StoreBackend createBackend() {
    return server.newBackend(DATABASE);
  }

  @Override
  protected void deleteRecordByHand(String name) {
    String collection = MongoStoreConfig.parse(server.settings(DATABASE)).leaseCollection();
    try (MongoClient client = MongoClients.create(server.url(DATABASE))) {
      long deleted =
          client
              .getDatabase(DATABASE)
              .getCollection(collection)
              .deleteOne(Filters.eq("_id", name))
              .getDeletedCount();
      if (deleted != 1) {
        throw new AssertionError("no lease document " + name + " in " + collection);
      }
    }
  }
}
