package dev.leasehold.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.ServerAddress;
import com.mongodb.WriteConcernResult;
import com.mongodb.bulk.WriteConcernError;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fail closed (G8): a server that stops, or was never there, makes every call throw {@link
 * LeaseStoreException} — never an empty answer that could pass for "held", never a silent success.
 * Runs against mongo-java-server, the in-process wire-compatible test server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MongoStoreFailureTest {
  private static final Instant FIRING = Instant.parse("2026-11-30T06:30:00Z");
  private static final Duration TTL = Duration.ofMinutes(5);

  @Test
  void everyCallOnAStoppedServerThrowsAStoreException() {
    WireServer server = WireServer.start();
    StoreSettings settings =
        WireServer.settings(server.url("failure"), Duration.ofMillis(500), Map.of());
    try (StoreBackend backend = new MongoStoreFactory().open(settings)) {
      var store = backend.leaseStore();
      Lease lease = store.claim("stopped", FIRING, "node-a", TTL).orElseThrow();
      backend.ping();
      server.close();

      long start = System.nanoTime();
      assertStoreException(() -> store.claim("stopped", FIRING.plusSeconds(60), "node-b", TTL));
      System.out.printf(
          "claim on a stopped server failed after %d ms (command timeout 500 ms)%n",
          Duration.ofNanos(System.nanoTime() - start).toMillis());
      assertStoreException(() -> store.acquire("other", "node-b", TTL));
      assertStoreException(() -> store.renew(lease, TTL));
      assertStoreException(() -> store.release(lease));
      assertStoreException(() -> store.inspect("stopped"));
      assertStoreException(store::list);
      assertStoreException(backend::ping);
      assertStoreException(() -> backend.executionLog().record(record()));
      assertStoreException(() -> backend.executionLog().recent(null, 10));
    }
  }

  @Test
  void aServerThatNeverAnsweredGivesAStoreExceptionAfterTheCommandTimeout() throws IOException {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    StoreSettings settings =
        new StoreSettings(
            "mongo",
            "mongodb://127.0.0.1:" + port + "/failure",
            List.of(),
            null,
            null,
            null,
            Duration.ofMillis(500),
            Map.of());
    // opening connects lazily, so a store that is down does not stop the daemon from starting
    try (StoreBackend backend = new MongoStoreFactory().open(settings)) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> backend.leaseStore().claim("never", FIRING, "node-a", TTL))
          .isInstanceOf(LeaseStoreException.class)
          .hasCauseInstanceOf(MongoTimeoutException.class);
      System.out.printf(
          "claim against a closed port failed after %d ms (command timeout 500 ms)%n",
          Duration.ofNanos(System.nanoTime() - start).toMillis());
    }
  }

  @Test
  void onlyDuplicateKeyCountsAsLost() {
    ServerAddress address = new ServerAddress("127.0.0.1", 27017);
    assertThat(MongoErrors.isDuplicateKey(commandError(11000, address))).isTrue();
    assertThat(MongoErrors.isDuplicateKey(commandError(11001, address))).isTrue();
    assertThat(MongoErrors.isDuplicateKey(commandError(50, address))).isFalse();
    assertThat(MongoErrors.isDuplicateKey(commandError(224, address))).isFalse();
    MongoWriteConcernException writeConcern =
        new MongoWriteConcernException(
            new WriteConcernError(
                64, "WriteConcernFailed", "waiting for replication timed out", new BsonDocument()),
            WriteConcernResult.unacknowledged(),
            address,
            java.util.Set.of());
    assertThat(MongoErrors.isDuplicateKey(writeConcern)).isFalse();
    assertThatThrownBy(
            () ->
                MongoErrors.call(
                    "claim of x",
                    () -> {
                      throw writeConcern;
                    }))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("claim of x")
        .hasCause(writeConcern);
    MongoSocketReadTimeoutException timeout =
        new MongoSocketReadTimeoutException("read timed out", address, new IOException("slow"));
    assertThatThrownBy(
            () ->
                MongoErrors.call(
                    "renewal of x",
                    () -> {
                      throw timeout;
                    }))
        .isInstanceOf(LeaseStoreException.class)
        .hasCause(timeout);
  }

  private static MongoCommandException commandError(int code, ServerAddress address) {
    return new MongoCommandException(
        new BsonDocument("ok", new BsonInt32(0))
            .append("code", new BsonInt32(code))
            .append("errmsg", new BsonString("error " + code)),
        address);
  }

  private static void assertStoreException(ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("MongoDB");
  }

  private static ExecutionRecord record() {
    return new ExecutionRecord(
        "job",
        FIRING,
        "node-a",
        1,
        TriggerKind.SCHEDULED,
        FIRING,
        FIRING,
        Outcome.SUCCEEDED,
        0,
        null);
  }
}
