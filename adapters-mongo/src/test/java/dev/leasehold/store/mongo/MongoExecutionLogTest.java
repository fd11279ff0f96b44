package dev.leasehold.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link MongoExecutionLog} adds to the history contract ({@link
 * MongoExecutionLogContractTest}): indexes and retention, against mongo-java-server, the in-process
 * wire-compatible test server. It accepts the TTL index but never deletes expired documents, so
 * retention is checked by the index definition, not by waiting for deletion.
 */
class MongoExecutionLogTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:30:00Z");
  private static WireServer server;
  private final List<StoreBackend> opened = new ArrayList<>();
  private String database;
  private ExecutionLog log;

  @BeforeAll
  static void startServer() {
    server = WireServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void open() {
    database = "history_" + UUID.randomUUID().toString().substring(0, 8);
    log = open(Map.of()).executionLog();
  }

  @AfterEach
  void close() {
    opened.forEach(StoreBackend::close);
  }

  private StoreBackend open(Map<String, String> options) {
    StoreBackend backend =
        new MongoStoreFactory().open(WireServer.settings(server.url(database), options));
    opened.add(backend);
    return backend;
  }

  private static ExecutionRecord run(String job, int minute, Outcome outcome) {
    Instant fire = T0.plus(Duration.ofMinutes(minute));
    return new ExecutionRecord(
        job,
        fire,
        "node-" + minute,
        minute + 1,
        TriggerKind.SCHEDULED,
        fire.plusMillis(3),
        fire.plusSeconds(2),
        outcome,
        outcome == Outcome.SUCCEEDED ? 0 : 1,
        outcome == Outcome.SUCCEEDED ? null : "exit 1");
  }

  @Test
  void historyIsIndexedByJobAndExpiresAfterTheRetention() {
    log.record(run("digest", 0, Outcome.SUCCEEDED));
    assertThat(ttlSeconds("leasehold_executions")).isEqualTo(Duration.ofDays(30).toSeconds());
    assertThat(indexNames("leasehold_executions")).contains("job_startedAt", "finishedAt_ttl");

    ExecutionLog weekly =
        open(Map.of("history-retention", "7d", "execution-collection", "weekly_history"))
            .executionLog();
    weekly.record(run("digest", 0, Outcome.SUCCEEDED));
    assertThat(ttlSeconds("weekly_history")).isEqualTo(Duration.ofDays(7).toSeconds());
  }

  @Test
  void aChangedRetentionDoesNotStopTheHistory() {
    log.record(run("digest", 0, Outcome.SUCCEEDED));
    ExecutionLog shorter = open(Map.of("history-retention", "1d")).executionLog();
    shorter.record(run("digest", 1, Outcome.SUCCEEDED));
    assertThat(shorter.recent("digest", 10)).hasSize(2);
  }

  private List<Document> indexes(String collection) {
    try (MongoClient client = MongoClients.create(server.url(database))) {
      return client
          .getDatabase(database)
          .getCollection(collection)
          .listIndexes()
          .into(new ArrayList<>());
    }
  }

  private List<String> indexNames(String collection) {
    return indexes(collection).stream().map(d -> d.getString("name")).toList();
  }

  private long ttlSeconds(String collection) {
    return indexes(collection).stream()
        .filter(d -> "finishedAt_ttl".equals(d.getString("name")))
        .map(d -> d.get("expireAfterSeconds", Number.class).longValue())
        .findFirst()
        .orElseThrow();
  }
}
