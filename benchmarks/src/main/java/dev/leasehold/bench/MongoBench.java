package dev.leasehold.bench;

import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.mongo.MongoStoreFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;
import org.bson.Document;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * The Mongo store against mongo-java-server, the in-process wire-protocol test server (no real
 * mongod can be installed here): the server runs in this JVM and shares its two cores, so these
 * numbers say nothing about a real MongoDB. Next to it: bare driver commands on a client with the
 * store's write concern, and ShedLock's {@link MongoLockProvider} on the same server.
 */
public class MongoBench extends LeaseBench {
  private MongoServer server;
  private MongoClient client;
  private MongoDatabase database;
  private MongoCollection<Document> raw;
  private MongoLockProvider shedlock;

  @Override
  protected StoreBackend open() {
    server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", 0);
    String url = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort() + "/lh_bench";
    client = MongoClients.create(url);
    database = client.getDatabase("lh_bench").withWriteConcern(WriteConcern.MAJORITY);
    raw = database.getCollection("bench_raw");
    shedlock = new MongoLockProvider(database.getCollection("shedLock"));
    return new MongoStoreFactory()
        .open(
            new StoreSettings(
                "mongo", url, List.of(), null, null, null, Duration.ofSeconds(5), Map.of()));
  }

  @Override
  protected void close() {
    client.close();
    server.shutdownNow();
  }

  /** The floor: the {@code ping} command. */
  @Benchmark
  public Document raw_ping() {
    return database.runCommand(new Document("ping", 1));
  }

  /** One {@code findOneAndUpdate} upsert on {@code _id}, the shape of a claim. */
  @Benchmark
  public Document raw_upsert(Slot slot) {
    return raw.findOneAndUpdate(
        Filters.eq("_id", slot.name + "-u"),
        Updates.inc("n", 1),
        new FindOneAndUpdateOptions().upsert(true));
  }

  @Benchmark
  public boolean shedlock_lockUnlock(Slot slot) {
    return shedlockLockUnlock(shedlock, slot);
  }

  @Override
  protected Optional<LockProvider> shedlock() {
    return Optional.of(shedlock);
  }
}
