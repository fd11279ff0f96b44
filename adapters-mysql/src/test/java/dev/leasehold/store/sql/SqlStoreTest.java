package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What the SQL store adds to the lease and history contracts, on each database: migrations
 * (idempotent, concurrent, next to an application's tables), and time taken from the database's
 * clock in UTC whatever the JVM's and the session's time zones are.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class SqlStoreTest {
  private static final Duration HOUR = Duration.ofHours(1);

  protected TestDatabase database;
  private StoreBackend backend;

  /** A fresh, empty (not migrated) database on this test's server. */
  protected abstract TestDatabase freshDatabase();

  @BeforeAll
  void open() {
    database = freshDatabase();
    backend = database.open();
  }

  @AfterAll
  void drop() {
    if (backend != null) {
      backend.close();
    }
    if (database != null) {
      database.close();
    }
  }

  private static String freshName() {
    return "sql-" + UUID.randomUUID().toString().substring(0, 13);
  }

  @Test
  void openingAgainDoesNotMigrateAgain() {
    String name = freshName();
    backend.leaseStore().acquire(name, "node-a", HOUR).orElseThrow();
    try (StoreBackend again = database.open()) {
      assertThat(again.leaseStore().inspect(name).orElseThrow().holder()).isEqualTo("node-a");
    }
    database.withDsl(
        db ->
            assertThat(
                    db.fetchCount(
                        DSL.table(DSL.name(SqlMigrations.HISTORY_TABLE)),
                        DSL.field(DSL.name("version")).eq("1")))
                .isEqualTo(1));
  }

  @Test
  void concurrentFirstOpensOfAnEmptyDatabaseAllSucceed() throws Exception {
    try (TestDatabase fresh = freshDatabase()) {
      int clients = 4;
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      List<StoreBackend> opened = new ArrayList<>();
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<StoreBackend>> results = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
          results.add(
              pool.submit(
                  () -> {
                    start.await();
                    return fresh.open();
                  }));
        }
        start.countDown();
        for (Future<StoreBackend> f : results) {
          opened.add(f.get(60, TimeUnit.SECONDS));
        }
        String name = freshName();
        long winners =
            opened.stream()
                .filter(b -> b.leaseStore().acquire(name, "n", HOUR).isPresent())
                .count();
        assertThat(winners).isEqualTo(1);
      } finally {
        opened.forEach(StoreBackend::close);
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aDatabaseThatAlreadyHoldsTheApplicationsTablesIsMigrated() {
    try (TestDatabase fresh = freshDatabase()) {
      fresh.withDsl(db -> db.createTable("app_orders").column("id", SQLDataType.INTEGER).execute());
      try (StoreBackend b = fresh.open()) {
        assertThat(b.leaseStore().claim(freshName(), Instant.EPOCH, "n", HOUR)).isPresent();
      }
    }
  }

  @Test
  void theLeaseEndIsComputedByTheDatabaseClock() {
    String name = freshName();
    Instant before = databaseNow();
    backend.leaseStore().acquire(name, "node-a", HOUR).orElseThrow();
    Instant after = databaseNow();
    Instant start = backend.leaseStore().inspect(name).orElseThrow().leaseUntil().minus(HOUR);
    assertThat(start).isBetween(before, after);
  }

  /**
   * The JVM runs in Europe/Berlin and the database session is set to another zone by the URL: a
   * firing inside Berlin's daylight-saving gap still round-trips to the millisecond, and the lease
   * end is UTC (same host, so it must be near this JVM's UTC instant, not hours off).
   */
  @Test
  void timesAreUtcWhateverTheJvmAndSessionTimeZones() {
    TimeZone original = TimeZone.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone("Europe/Berlin"));
    try {
      StoreSettings zoned =
          database.settings(database.urlWithSessionTimeZone(), TestDatabase.TIMEOUT);
      try (LeaseStore store = database.leaseStore(zoned)) {
        String name = freshName();
        Instant inGap = Instant.parse("2026-03-29T02:30:00.123Z");
        Lease lease = store.claim(name, inGap, "node-a", HOUR).orElseThrow();
        LeaseState state = store.inspect(name).orElseThrow();
        assertThat(state.lastFire()).isEqualTo(inGap);
        assertThat(state.held()).isTrue();
        assertThat(state.leaseUntil())
            .isBetween(Instant.now().plus(HOUR).minusSeconds(60), Instant.now().plus(HOUR));
        assertThat(store.release(lease)).isTrue();
        assertThat(store.claim(name, inGap, "node-b", HOUR)).isEmpty();
        assertThat(store.claim(name, inGap.plusMillis(1), "node-b", HOUR)).isPresent();
      }
    } finally {
      TimeZone.setDefault(original);
    }
  }

  @Test
  void pingAnswersWhileTheDatabaseIsUp() {
    backend.ping();
    assertThat(backend.leaseStore().list()).isNotNull();
  }

  private Instant databaseNow() {
    Optional<Instant>[] now = new Optional[1];
    database.withDsl(db -> now[0] = db.select(Tables.NOW).fetchOptional(Tables.NOW));
    return now[0].orElseThrow();
  }
}
