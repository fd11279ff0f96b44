package dev.leasehold.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.store.mongo.testserver.MongoTestServerProcess;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiry is judged on the server's clock and on nothing else (G2, G3). The wire-compatible test
 * server (mongo-java-server, not a real mongod) runs as its own process under libfaketime, one hour
 * ahead of the test's clock, and the test moves the server's clock while the clients' clocks stay
 * where they are; each move is followed by a wait until the server reports the new time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MongoServerClockTest {
  private static final Path LIBFAKETIME = findLibfaketime();
  private static final Instant FIRING = Instant.parse("2026-11-30T06:30:00Z");
  private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

  @TempDir Path dir;
  private Path offsetFile;
  private MongoTestServerProcess server;
  private final List<StoreBackend> backends = new ArrayList<>();

  private static Path findLibfaketime() {
    for (String candidate :
        new String[] {
          "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
          "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
          "/usr/lib/faketime/libfaketime.so.1"
        }) {
      if (Files.exists(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    return null;
  }

  @BeforeEach
  void startServerOneHourAhead() throws IOException {
    if (LIBFAKETIME == null) {
      ServerAvailability.missing("libfaketime is not installed; run: bash .ci/services.sh");
    }
    offsetFile = dir.resolve("server-clock-offset");
    setServerOffset("+3600");
    server =
        MongoTestServerProcess.start(
            Map.of(
                "LD_PRELOAD",
                LIBFAKETIME.toString(),
                "FAKETIME_TIMESTAMP_FILE",
                offsetFile.toString(),
                "FAKETIME_NO_CACHE",
                "1",
                "FAKETIME_DONT_FAKE_MONOTONIC",
                "1",
                // without this, libfaketime 0.9.10 makes a JVM take 20-45 s to start
                "FAKETIME_FORCE_MONOTONIC_FIX",
                "0"));
  }

  @AfterEach
  void stop() throws InterruptedException {
    backends.forEach(StoreBackend::close);
    if (server != null) {
      server.close();
    }
  }

  /** The server's clock runs this many seconds ahead of the real one. */
  private void setServerOffset(String seconds) throws IOException {
    Path tmp = Files.writeString(dir.resolve("offset.tmp"), seconds + "\n");
    Files.move(tmp, offsetFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** The server's clock, read by a {@code $currentDate} on a probe document. */
  private Instant serverNow() {
    try (MongoClient probe = MongoClients.create("mongodb://127.0.0.1:" + server.port())) {
      return probe
          .getDatabase("clock")
          .getCollection("probe")
          .findOneAndUpdate(
              new Document("_id", "now"),
              Updates.currentDate("now"),
              new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER))
          .getDate("now")
          .toInstant();
    }
  }

  /** Moves the server's clock and waits until the server runs on it. */
  private void moveServerClock(long offsetSeconds) throws IOException {
    setServerOffset((offsetSeconds >= 0 ? "+" : "") + offsetSeconds);
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (Math.abs(Duration.between(Instant.now(), serverNow()).toSeconds() - offsetSeconds)
        > 60) {
      assertThat(System.nanoTime()).as("server clock moved within 30 s").isLessThan(end);
    }
  }

  private LeaseStore client() {
    StoreBackend backend =
        new MongoStoreFactory()
            .open(WireServer.settings("mongodb://127.0.0.1:" + server.port() + "/clock", Map.of()));
    backends.add(backend);
    return backend.leaseStore();
  }

  @Test
  void theLeaseEndIsTheServersStartPlusTheTtl() {
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Lease lease = client().claim("report", FIRING, "node-a", TEN_MINUTES).orElseThrow();
    Instant after = Instant.now();
    Duration ahead = Duration.ofHours(1).plus(TEN_MINUTES);
    assertThat(lease.expiresAt()).isBetween(before.plus(ahead), after.plus(ahead));
  }

  @Test
  void aLeaseExpiresWhenTheServersClockPassesItsEndWhateverTheClientsClocksSay()
      throws IOException {
    LeaseStore a = client();
    LeaseStore b = client();
    Lease lease = a.claim("backup", FIRING, "node-a", TEN_MINUTES).orElseThrow();
    assertThat(b.acquire("backup", "node-b", TEN_MINUTES)).isEmpty();
    assertThat(b.claim("backup", FIRING.plusSeconds(60), "node-b", TEN_MINUTES)).isEmpty();

    moveServerClock(3600 + TEN_MINUTES.toSeconds() + 60);

    assertThat(b.inspect("backup").orElseThrow().held()).isFalse();
    assertThat(a.renew(lease, TEN_MINUTES)).as("an expired lease cannot be revived").isFalse();
    assertThat(b.claim("backup", FIRING.plusSeconds(60), "node-b", TEN_MINUTES)).isPresent();
  }

  @Test
  void aServerClockThatFallsBackKeepsTheLeaseLongerNeverShorter() throws IOException {
    LeaseStore a = client();
    LeaseStore b = client();
    long acquired = System.nanoTime();
    Lease lease = a.acquire("digest", "node-a", Duration.ofSeconds(4)).orElseThrow();
    moveServerClock(-3600);
    while (System.nanoTime() - acquired < Duration.ofSeconds(6).toNanos()) {
      assertThat(b.acquire("digest", "node-b", TEN_MINUTES)).isEmpty();
    }
    assertThat(a.renew(lease, TEN_MINUTES)).isTrue();
  }
}
