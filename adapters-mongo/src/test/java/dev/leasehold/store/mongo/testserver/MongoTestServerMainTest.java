package dev.leasehold.store.mongo.testserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The launcher for black-box tests runs as its own process and answers on the port it prints. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MongoTestServerMainTest {

  @Test
  void theLauncherPrintsItsPortAndServesUntilStopped() throws Exception {
    MongoTestServerProcess server = MongoTestServerProcess.start(Map.of());
    try (MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + server.port())) {
      var collection = client.getDatabase("launcher").getCollection("probe");
      collection.insertOne(new Document("_id", "x"));
      assertThat(collection.countDocuments()).isEqualTo(1);
      assertThat(server.isAlive()).isTrue();
    } finally {
      server.close();
    }
    assertThat(server.isAlive()).isFalse();
  }
}
