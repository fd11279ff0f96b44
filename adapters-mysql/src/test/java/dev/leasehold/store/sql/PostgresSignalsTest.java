package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.core.store.StoreBackend;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's request signals ({@code LISTEN/NOTIFY}) between two independent clients, and none on
 * the other databases. The waits are generous limits, never measured.
 */
class PostgresSignalsTest {
  private static TestDatabase database;

  @BeforeAll
  static void createDatabase() {
    database = TestDatabase.postgres().migrated();
  }

  @AfterAll
  static void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void aSignalOfOneClientWakesTheListenerOfAnotherAfterTheWakeOfItsStart() throws Exception {
    try (StoreBackend listening = database.newBackend();
        StoreBackend sending = database.newBackend()) {
      RequestSignals heard = listening.requestSignals().orElseThrow();
      RequestSignals sent = sending.requestSignals().orElseThrow();
      Semaphore wakes = new Semaphore(0);
      try (AutoCloseable handle = heard.listen(wakes::release)) {
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("woken once listening").isTrue();
        sent.signal();
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("woken by the signal").isTrue();
        sent.signal();
        sent.signal();
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("woken again").isTrue();
      }
    }
  }

  @Test
  void onlyPostgresSignals() {
    for (String type : new String[] {"h2", "mysql", "mariadb"}) {
      assertThat(SqlDialect.forType(type).requestSignals(null)).as(type).isEmpty();
    }
  }
}
