package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.DeletedRecordCases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The deleted-record cases on each database: the operator deletes the lease row ({@code DELETE FROM
 * task_lock WHERE lock_key = ...}, fence and watermark with it); the delete's trigger keeps both in
 * {@code task_lock_high_water}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SqlDeletedRecordTest extends DeletedRecordCases {
  private TestDatabase database;

  /** A fresh, empty (not migrated) database on this test's server. */
  protected abstract TestDatabase freshDatabase();

  @BeforeAll
  void createDatabase() {
    database = freshDatabase().migrated();
  }

  @AfterAll
  void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Override
  protected StoreBackend createBackend() {
    return database.newBackend();
  }

  @Override
  protected void deleteRecordByHand(String name) {
    database.execute("DELETE FROM task_lock WHERE lock_key = '" + name + "'");
  }

  /** A namespaced name is one row like any other; forget still forgets its watermark. */
  @Test
  void aNamespacedRowIsRestoredAndAForgottenOneStartsAfresh() {
    String name = "_leasehold.ns.billing." + freshName();
    Lease first = store.claim(name, F2, "node-a", LONG).orElseThrow();
    assertThat(store.release(first)).isTrue();

    deleteRecordByHand(name);
    try (StoreBackend client = newBackend()) {
      LeaseStore fresh = client.leaseStore();
      assertThat(fresh.claim(name, F2, "node-b", LONG)).as("a firing already run").isEmpty();
      Lease next = fresh.claim(name, F3, "node-b", LONG).orElseThrow();
      assertThat(next.fence()).isGreaterThan(first.fence());
      assertThat(fresh.release(next)).isTrue();

      assertThat(client.forgetting().orElseThrow().forget(name)).isTrue();
      Lease again = fresh.claim(name, F1, "node-b", LONG).orElseThrow();
      assertThat(again.fence()).as("above the forgotten fences").isGreaterThan(next.fence());
      assertThat(fresh.release(again)).isTrue();
    }
  }
}
