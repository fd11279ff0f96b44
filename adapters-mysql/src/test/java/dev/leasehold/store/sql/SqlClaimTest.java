package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The SQL claim statements on each database: the refusal's reason in the claim's own answer,
 * batches that mix new, held and already-run names, and servers that only look compatible (a {@code
 * task_lock} without its primary key, a trigger that swallows updates), which must make claims fail
 * closed instead of letting two clients win.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class SqlClaimTest {
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Instant F1 = Instant.parse("2026-11-30T00:00:00.001Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final Instant F3 = F2.plusSeconds(60);

  private TestDatabase database;
  private LeaseStore a;
  private LeaseStore b;

  /** A fresh, empty (not migrated) database on this test's server. */
  protected abstract TestDatabase freshDatabase();

  @BeforeAll
  void open() {
    database = freshDatabase().migrated();
    a = database.newLeaseStore();
    b = database.newLeaseStore();
  }

  @AfterAll
  void drop() {
    for (AutoCloseable c : new AutoCloseable[] {a, b, database}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static String freshName() {
    return "claim-" + UUID.randomUUID().toString().substring(0, 13);
  }

  @Test
  void aClaimSaysWhetherItWonOrWhyItWasRefused() {
    String name = freshName();
    ClaimResult first = a.tryClaim(name, F1, "node-a", LONG);
    assertThat(first.kind()).isEqualTo(Kind.WON);
    assertThat(first.lease().fence()).isEqualTo(1);

    ClaimResult again = b.tryClaim(name, F1, "node-b", LONG);
    assertThat(again.kind()).isEqualTo(Kind.ALREADY_RUN);
    assertThat(again.watermark()).isEqualTo(F1);

    ClaimResult next = b.tryClaim(name, F2, "node-b", LONG);
    assertThat(next.kind()).isEqualTo(Kind.HELD);
    assertThat(next.watermark()).isEqualTo(F1);
    if (database.vendor != SqlDialect.MYSQL) { // MySQL's answer carries no holder
      assertThat(next.holder()).isEqualTo("node-a");
    }

    assertThat(a.release(first.lease())).isTrue();
    ClaimResult won = b.tryClaim(name, F2, "node-b", LONG);
    assertThat(won.kind()).isEqualTo(Kind.WON);
    assertThat(won.lease().fence()).isEqualTo(2);
    assertThat(a.tryClaim(name, F1, "node-a", LONG)).isEqualTo(ClaimResult.alreadyRun(F2));
    assertThat(b.inspect(name).orElseThrow().lastFire()).isEqualTo(F2);
  }

  @Test
  void aDeletedLeaseRowGetsAFenceAboveTheHighestKnownAndTheJobRunsAgain() throws Exception {
    String name = freshName();
    a.release(a.claim(name, F1, "node-a", LONG).orElseThrow());
    a.release(a.claim(name, F2, "node-a", LONG).orElseThrow());

    // an operator unlocks the job the ShedLock way: the fence would start again at 1
    database.execute("DELETE FROM task_lock WHERE lock_key = '" + name + "'");
    Lease afterDelete = a.claim(name, F3, "node-a", LONG).orElseThrow();
    assertThat(afterDelete.fence()).as("above the 2 this client won").isEqualTo(3);
    assertThat(a.inspect(name).orElseThrow().fence()).isEqualTo(3);
    a.release(afterDelete);

    // a client that never ran the job: the history knows a higher fence than the row
    database.execute(
        "INSERT INTO task_execution (job, fire_time, node, fence, trigger_kind, started_at,"
            + " finished_at, outcome) VALUES ('"
            + name
            + "', TIMESTAMP '2026-11-30 00:03:00', 'node-x', 9, 'scheduled',"
            + " TIMESTAMP '2026-11-30 00:03:00', TIMESTAMP '2026-11-30 00:03:01', 'succeeded')",
        "DELETE FROM task_lock WHERE lock_key = '" + name + "'");
    try (LeaseStore fresh = database.newLeaseStore()) {
      Lease lease = fresh.claim(name, F3.plusSeconds(60), "node-c", LONG).orElseThrow();
      assertThat(lease.fence()).as("above the history's 9").isEqualTo(10);
      fresh.release(lease);
    }
    assertThat(b.claim(name, F3.plusSeconds(120), "node-b", LONG).orElseThrow().fence())
        .isEqualTo(11);
  }

  @Test
  void anAcquireNeitherNeedsNorMovesTheWatermark() {
    String name = freshName();
    Lease claimed = a.claim(name, F2, "node-a", LONG).orElseThrow();
    assertThat(b.acquire(name, "node-b", LONG)).isEmpty();
    assertThat(a.release(claimed)).isTrue();
    Lease acquired = b.acquire(name, "node-b", LONG).orElseThrow();
    assertThat(acquired.fence()).isEqualTo(2);
    assertThat(b.inspect(name).orElseThrow().lastFire()).isEqualTo(F2);
    assertThat(a.tryClaim(name, F3, "node-a", LONG).kind()).isEqualTo(Kind.HELD);
  }

  @Test
  void aBatchTakesNewNamesAndRefusesHeldAndAlreadyRunOnes() {
    String held = freshName();
    String ran = freshName();
    String expired = freshName();
    Lease heldLease = a.claim(held, F1, "node-a", LONG).orElseThrow();
    a.release(a.claim(ran, F2, "node-a", LONG).orElseThrow());
    a.claim(expired, F1, "node-a", Duration.ofMillis(1)).orElseThrow();
    untilFree(a, expired);
    List<String> fresh = List.of("zz-" + freshName(), "aa-" + freshName(), freshName());

    List<ClaimRequest> batch = new ArrayList<>();
    batch.add(new ClaimRequest(fresh.get(0), F2, "node-b", LONG));
    batch.add(new ClaimRequest(held, F2, "node-b", LONG));
    batch.add(new ClaimRequest(fresh.get(1), F2, "node-b", LONG));
    batch.add(new ClaimRequest(ran, F2, "node-b", LONG));
    batch.add(new ClaimRequest(expired, F2, "node-b", LONG));
    batch.add(new ClaimRequest(fresh.get(2), F2, "node-b", LONG));
    List<ClaimResult> results = b.claimAll(batch);

    assertThat(results)
        .extracting(ClaimResult::kind)
        .containsExactly(Kind.WON, Kind.HELD, Kind.WON, Kind.ALREADY_RUN, Kind.WON, Kind.WON);
    for (int i : new int[] {0, 2, 4, 5}) {
      Lease lease = results.get(i).lease();
      assertThat(lease.name()).isEqualTo(batch.get(i).name());
      assertThat(lease.holder()).isEqualTo("node-b");
      assertThat(lease.fence()).isEqualTo(i == 4 ? 2 : 1);
      assertThat(b.inspect(lease.name()).orElseThrow().lastFire()).isEqualTo(F2);
      assertThat(b.release(lease)).isTrue();
    }
    assertThat(results.get(1).watermark()).isEqualTo(F1);
    assertThat(results.get(3).watermark()).isEqualTo(F2);
    assertThat(a.inspect(held).orElseThrow().holder()).isEqualTo("node-a");
    assertThat(a.release(heldLease)).isTrue();
    // the same batch again: only the name that was held is free for F2 now
    assertThat(a.claimAll(batch))
        .extracting(ClaimResult::kind)
        .containsExactly(
            Kind.ALREADY_RUN,
            Kind.WON,
            Kind.ALREADY_RUN,
            Kind.ALREADY_RUN,
            Kind.ALREADY_RUN,
            Kind.ALREADY_RUN);
  }

  @Test
  void aBatchLargerThanOneStatementKeepsItsOrder() {
    List<ClaimRequest> batch = new ArrayList<>();
    for (int i = 0; i < ClaimSql.MAX_BATCH * 2 + 7; i++) {
      batch.add(new ClaimRequest(freshName(), F1, "node-a", LONG));
    }
    List<ClaimResult> results = a.claimAll(batch);
    assertThat(results).hasSize(batch.size()).allMatch(ClaimResult::won);
    for (int i = 0; i < batch.size(); i++) {
      assertThat(results.get(i).lease().name()).isEqualTo(batch.get(i).name());
    }
    assertThat(b.claimAll(batch)).extracting(ClaimResult::kind).containsOnly(Kind.ALREADY_RUN);
    List<ClaimRequest> next =
        batch.stream().map(r -> new ClaimRequest(r.name(), F2, "node-b", LONG)).toList();
    assertThat(b.claimAll(next)).extracting(ClaimResult::kind).containsOnly(Kind.HELD);
  }

  @Test
  void racingBatchesOfTwoClientsWinEachNameOnce() throws Exception {
    List<ClaimRequest> batch = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      batch.add(new ClaimRequest(freshName(), F1, "node", LONG));
    }
    List<LeaseStore> clients = List.of(a, b, database.newLeaseStore(), database.newLeaseStore());
    ExecutorService pool = Executors.newFixedThreadPool(clients.size());
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<ClaimResult>>> answers = new ArrayList<>();
      for (LeaseStore client : clients) {
        answers.add(
            pool.submit(
                () -> {
                  start.await();
                  return client.claimAll(batch);
                }));
      }
      start.countDown();
      int[] winners = new int[batch.size()];
      for (Future<List<ClaimResult>> f : answers) {
        List<ClaimResult> results = f.get(60, TimeUnit.SECONDS);
        for (int i = 0; i < results.size(); i++) {
          assertThat(results.get(i).kind()).isIn(Kind.WON, Kind.HELD, Kind.ALREADY_RUN);
          winners[i] += results.get(i).won() ? 1 : 0;
        }
      }
      assertThat(winners).containsOnly(1);
    } finally {
      pool.shutdownNow();
      clients.get(2).close();
      clients.get(3).close();
    }
  }

  /**
   * A mis-migrated schema (or a proxy that does not enforce keys): {@code task_lock} without its
   * primary key. A second claim of a name must not win: it fails closed and says why.
   */
  @Test
  void aTableWithoutItsPrimaryKeyMakesSecondClaimsFailInsteadOfWinning() throws Exception {
    try (TestDatabase broken = freshDatabase();
        LeaseStore first = broken.newLeaseStore();
        LeaseStore second = broken.newLeaseStore()) {
      broken.execute(createTaskLockWithoutPrimaryKey(broken.vendor));
      String name = freshName();
      List<Optional<Lease>> won = new ArrayList<>();
      for (LeaseStore client : List.of(first, second, first)) {
        try {
          won.add(client.claim(name, F1, "node", LONG));
        } catch (LeaseStoreException e) {
          assertThat(e.getMessage()).containsAnyOf("primary key", "ON CONFLICT", "fence");
        }
      }
      assertThat(won.stream().filter(Optional::isPresent)).hasSizeLessThanOrEqualTo(1);
      List<ClaimResult> batch = second.claimAll(List.of(new ClaimRequest(name, F2, "n", LONG)));
      assertThat(batch.get(0).kind()).isIn(Kind.FAILED, Kind.HELD);
    }
  }

  /**
   * A trigger that silently keeps every updated row as it was. No claim of an existing row may win:
   * refused (the row is unchanged) or failed (MySQL: the answer does not fit the statement).
   */
  @Test
  void aServerThatSwallowsUpdatesNeverLetsASecondClaimWin() {
    if (database.vendor == SqlDialect.H2) {
      return; // H2 triggers are Java classes; the other three databases cover the behaviour
    }
    try (TestDatabase broken = freshDatabase().migrated();
        LeaseStore client = broken.newLeaseStore()) {
      broken.execute(swallowUpdates(broken.vendor));
      String name = freshName();
      assertThat(client.claim(name, F1, "node-a", Duration.ofMillis(1))).isPresent();
      untilFree(client, name);
      Function<LeaseStore, Kind> secondClaim =
          s -> {
            try {
              return s.tryClaim(name, F2, "node-b", LONG).kind();
            } catch (LeaseStoreException e) {
              assertThat(e.getMessage()).contains("does not fit the claim statement");
              return Kind.FAILED;
            }
          };
      Kind kind = secondClaim.apply(client);
      assertThat(kind).isNotEqualTo(Kind.WON);
      if (broken.vendor == SqlDialect.MYSQL) {
        assertThat(kind).isEqualTo(Kind.FAILED);
      }
    }
  }

  /** Waits (polling the database's own answer, never a duration) until a lease has expired. */
  private static void untilFree(LeaseStore store, String name) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (store.inspect(name).orElseThrow().held()) {
      assertThat(System.nanoTime()).as("lease of %s still held", name).isLessThan(end);
      Thread.onSpinWait();
    }
  }

  private static String createTaskLockWithoutPrimaryKey(SqlDialect vendor) {
    String time =
        vendor == SqlDialect.MYSQL || vendor == SqlDialect.MARIADB ? "DATETIME(3)" : "TIMESTAMP(3)";
    return "CREATE TABLE task_lock (lock_key VARCHAR(100) NOT NULL, holder VARCHAR(200),"
        + " token VARCHAR(64), fence BIGINT NOT NULL, last_fire "
        + time
        + ", lease_until "
        + time
        + " NOT NULL, paused_at "
        + time
        + ", paused_by VARCHAR(200), paused_reason VARCHAR(500),"
        + " pause_stop INTEGER DEFAULT 0 NOT NULL, paused_fire "
        + time
        + ", pause_claim VARCHAR(64))";
  }

  private static String[] swallowUpdates(SqlDialect vendor) {
    if (vendor == SqlDialect.POSTGRES) {
      return new String[] {
        "CREATE FUNCTION keep_old() RETURNS trigger LANGUAGE plpgsql AS"
            + " 'BEGIN RETURN OLD; END'",
        "CREATE TRIGGER swallow BEFORE UPDATE ON task_lock FOR EACH ROW EXECUTE FUNCTION keep_old()"
      };
    }
    return new String[] {
      "CREATE TRIGGER swallow BEFORE UPDATE ON task_lock FOR EACH ROW SET"
          + " NEW.holder = OLD.holder, NEW.token = OLD.token, NEW.fence = OLD.fence,"
          + " NEW.last_fire = OLD.last_fire, NEW.lease_until = OLD.lease_until"
    };
  }
}
