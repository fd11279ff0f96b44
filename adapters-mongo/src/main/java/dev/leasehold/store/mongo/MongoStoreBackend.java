package dev.leasehold.store.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import java.util.Date;
import java.util.function.Supplier;
import org.bson.Document;

/**
 * One MongoDB client shared by the lease store and the execution log. Creating the client does no
 * I/O: the driver connects in the background and each call waits at most the command timeout for a
 * usable server.
 */
final class MongoStoreBackend implements StoreBackend {
  private final MongoClient client;
  private final MongoDatabase database;
  private final MongoLeaseStore leases;
  private final MongoExecutionLog executions;

  MongoStoreBackend(MongoStoreConfig config) {
    this.client =
        MongoErrors.call("client creation", () -> MongoClients.create(config.clientSettings()));
    this.database = client.getDatabase(config.database());
    // the client belongs to this backend: closing the lease store alone leaves it open
    this.leases =
        new MongoLeaseStore(
            database.getCollection(config.leaseCollection()), serverClock(database), () -> {});
    this.executions =
        new MongoExecutionLog(
            database.getCollection(config.executionCollection()), config.historyRetention());
  }

  /** A lease store that owns its own client, for callers that need nothing else. */
  static MongoLeaseStore leaseStoreOwningItsClient(MongoStoreConfig config) {
    MongoClient client =
        MongoErrors.call("client creation", () -> MongoClients.create(config.clientSettings()));
    MongoDatabase database = client.getDatabase(config.database());
    return new MongoLeaseStore(
        database.getCollection(config.leaseCollection()), serverClock(database), client::close);
  }

  /**
   * The server's own time, from {@code hello.localTime} (or the older {@code isMaster}, for servers
   * that predate {@code hello}).
   */
  private static Supplier<Date> serverClock(MongoDatabase database) {
    return () -> {
      Document answer;
      try {
        answer = database.runCommand(new Document("hello", 1));
      } catch (MongoCommandException e) {
        answer = database.runCommand(new Document("isMaster", 1));
      }
      Date now = answer.getDate("localTime");
      if (now == null) {
        throw new IncompatibleStoreException(
            "MongoDB read of the server's time: the server does not tell its time (no localTime in"
                + " hello or isMaster)");
      }
      return now;
    };
  }

  @Override
  public LeaseStore leaseStore() {
    return leases;
  }

  @Override
  public ExecutionLog executionLog() {
    return executions;
  }

  @Override
  public void ping() {
    MongoErrors.call("ping", () -> database.runCommand(new Document("ping", 1)));
  }

  @Override
  public void close() {
    client.close();
  }
}
