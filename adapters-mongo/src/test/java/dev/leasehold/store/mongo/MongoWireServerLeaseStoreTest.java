package dev.leasehold.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the contract kit cannot see, checked against mongo-java-server (the in-process
 * wire-compatible test server, not a real mongod): the documents hold the server's times, a second
 * lease document is refused by error 11000 and reported as lost, and no command carries what real
 * MongoDB or a wire-compatible server may refuse or misread (an upsert, a pipeline update, a filter
 * that is not led by a plain {@code _id} equality, {@code $and}) or a time read from the client's
 * clock. Expiry on a moved server clock is {@link MongoServerClockTest}.
 */
class MongoWireServerLeaseStoreTest {
  private static final Instant FIRING = Instant.parse("2026-11-30T06:30:00Z");
  private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

  private final List<BsonDocument> commands = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final List<MongoClient> clients = new ArrayList<>();
  private WireServer server;
  private String name;

  @BeforeEach
  void start() {
    server = WireServer.start();
    name = "mongo-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void stop() {
    clients.forEach(MongoClient::close);
    server.close();
  }

  /** A store on its own client whose commands (and failed commands) the test records. */
  private MongoLeaseStore recordedStore() {
    MongoStoreConfig config = MongoStoreConfig.parse(server.settings("clock"));
    MongoClient client =
        MongoClients.create(
            MongoClientSettings.builder(config.clientSettings())
                .addCommandListener(
                    new CommandListener() {
                      @Override
                      public void commandStarted(CommandStartedEvent event) {
                        commands.add(event.getCommand().clone());
                      }

                      @Override
                      public void commandFailed(CommandFailedEvent event) {
                        failures.add(event.getThrowable());
                      }
                    })
                .build());
    clients.add(client);
    return new MongoLeaseStore(
        client.getDatabase("clock").getCollection(config.leaseCollection()), () -> {});
  }

  private Document storedDocument() {
    MongoClient client = MongoClients.create(server.url("clock"));
    clients.add(client);
    return client
        .getDatabase("clock")
        .getCollection("leasehold_locks")
        .find(new Document("_id", name))
        .first();
  }

  @Test
  void theDocumentHoldsTheServersTimesTheTtlAndAfterReleaseOnlyWatermarkAndFence() {
    MongoLeaseStore store = recordedStore();
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Lease lease = store.claim(name, FIRING, "node-a", TEN_MINUTES).orElseThrow();
    Instant after = Instant.now();
    Document held = storedDocument();
    Instant leaseStart = held.getDate("leaseStart").toInstant();
    // in-process, server and client share one clock; that no client time is sent is checked below
    assertThat(leaseStart).isBetween(before, after);
    assertThat(lease.expiresAt()).isEqualTo(leaseStart.plus(TEN_MINUTES));
    assertThat(held.getLong("ttlMs")).isEqualTo(TEN_MINUTES.toMillis());
    assertThat(held.getDate("lastFire").toInstant()).isEqualTo(FIRING);
    assertThat(held.getLong("fence")).isEqualTo(lease.fence());
    assertThat(held.getString("holder")).isEqualTo("node-a");

    assertThat(store.renew(lease, Duration.ofMinutes(3))).isTrue();
    Document renewed = storedDocument();
    assertThat(renewed.getLong("ttlMs")).isEqualTo(Duration.ofMinutes(3).toMillis());
    LeaseState state = store.inspect(name).orElseThrow();
    assertThat(state.leaseUntil())
        .isEqualTo(renewed.getDate("leaseStart").toInstant().plus(Duration.ofMinutes(3)));

    assertThat(store.release(lease)).isTrue();
    Document released = storedDocument();
    assertThat(released).doesNotContainKeys("token", "holder");
    assertThat(released.getLong("ttlMs")).isZero();
    assertThat(released.getDate("lastFire").toInstant()).isEqualTo(FIRING);
    assertThat(released.getLong("fence")).isEqualTo(lease.fence());
  }

  @Test
  void aSecondLeaseDocumentIsRefusedByTheUniqueIdAndReportedAsLost() {
    MongoLeaseStore a = recordedStore();
    MongoLeaseStore b = recordedStore();
    assertThat(a.claim(name, FIRING, "node-a", TEN_MINUTES)).isPresent();
    commands.clear();
    assertThat(b.claim(name, FIRING.plusSeconds(60), "node-b", TEN_MINUTES)).isEmpty();
    assertThat(b.acquire(name, "node-b", TEN_MINUTES)).isEmpty();
    assertThat(commands.stream().filter(c -> c.containsKey("insert")).toList())
        .as("each refused caller tried to create the name's document")
        .hasSize(2);
    MongoClient client = MongoClients.create(server.url("clock"));
    clients.add(client);
    List<Document> stored =
        client
            .getDatabase("clock")
            .getCollection("leasehold_locks")
            .find(new Document("_id", name))
            .into(new ArrayList<>());
    assertThat(stored).hasSize(1);
    assertThat(stored.get(0).getString("holder")).isEqualTo("node-a");
  }

  @Test
  void noCommandUsesWhatRealMongoDbRefusesOrAClientTime() {
    MongoLeaseStore a = recordedStore();
    MongoLeaseStore b = recordedStore();
    Lease lease = a.claim(name, FIRING, "node-a", TEN_MINUTES).orElseThrow();
    b.claim(name, FIRING.plusSeconds(60), "node-b", TEN_MINUTES);
    a.renew(lease, TEN_MINUTES);
    a.inspect(name);
    a.list();
    a.release(lease);
    b.acquire(name, "node-b", TEN_MINUTES).orElseThrow();

    List<BsonDocument> writes =
        commands.stream()
            .filter(c -> c.containsKey("findAndModify") || c.containsKey("update"))
            .toList();
    assertThat(writes).hasSizeGreaterThanOrEqualTo(6);
    for (BsonDocument write : writes) {
      for (BsonDocument op : operations(write)) {
        boolean upsert = op.getBoolean("upsert", org.bson.BsonBoolean.FALSE).getValue();
        BsonValue filter = op.containsKey("q") ? op.get("q") : op.get("query");
        BsonValue update = op.containsKey("u") ? op.get("u") : op.get("update");
        assertThat(update.isArray()).as("pipeline update in %s", write).isFalse();
        assertThat(upsert).as("upsert in %s", write).isFalse();
        assertThat(contains(filter, "$and")).as("$and in filter %s", write).isFalse();
        assertThat(filter.asDocument().getFirstKey())
            .as("first condition of %s", write)
            .isEqualTo("_id");
      }
      List<Long> dates = new ArrayList<>();
      collectDates(write, dates);
      assertThat(dates)
          .as("dates sent by the client in %s", write)
          .allMatch(d -> d == FIRING.toEpochMilli() || d == FIRING.plusSeconds(60).toEpochMilli());
    }
    List<BsonDocument> inserts = commands.stream().filter(c -> c.containsKey("insert")).toList();
    assertThat(inserts).as("the name's free document, tried by each first caller").isNotEmpty();
    for (BsonDocument insert : inserts) {
      List<Long> insertDates = new ArrayList<>();
      collectDates(insert, insertDates);
      assertThat(insertDates).as("a free document ends at the epoch: %s", insert).containsOnly(0L);
    }
    assertThat(commands.stream().filter(c -> c.containsKey("aggregate")).toList())
        .allSatisfy(
            c ->
                assertThat(c.get("readConcern").asDocument().getString("level").getValue())
                    .isEqualTo("majority"));
    assertThat(writes)
        .allSatisfy(
            c ->
                assertThat(c.get("writeConcern").asDocument().get("w").asString().getValue())
                    .isEqualTo("majority"));
  }

  private static List<BsonDocument> operations(BsonDocument write) {
    if (write.containsKey("findAndModify")) {
      return List.of(write);
    }
    return write.getArray("updates").stream().map(BsonValue::asDocument).toList();
  }

  private static boolean contains(BsonValue value, String key) {
    if (value.isDocument()) {
      for (var entry : value.asDocument().entrySet()) {
        if (entry.getKey().equals(key) || contains(entry.getValue(), key)) {
          return true;
        }
      }
    } else if (value.isArray()) {
      return value.asArray().stream().anyMatch(v -> contains(v, key));
    }
    return false;
  }

  private static void collectDates(BsonValue value, List<Long> out) {
    if (value instanceof BsonDateTime date) {
      out.add(date.getValue());
    } else if (value.isDocument()) {
      value.asDocument().values().forEach(v -> collectDates(v, out));
    } else if (value instanceof BsonArray array) {
      array.forEach(v -> collectDates(v, out));
    }
  }
}
