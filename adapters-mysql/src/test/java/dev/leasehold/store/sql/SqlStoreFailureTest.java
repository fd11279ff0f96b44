package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fail closed (G8) against MariaDB and PostgreSQL: a database that is down, hangs or drops its
 * connections makes every call throw {@link LeaseStoreException} within the command timeout — never
 * a lease, never a hang — and the store recovers on its own when the database answers again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlStoreFailureTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration TTL = Duration.ofMinutes(5);
  private TestDatabase mariaDb;
  private TestDatabase postgres;

  @BeforeAll
  void createDatabases() {
    mariaDb = TestDatabase.mariaDb().migrated();
    postgres = TestDatabase.postgres().migrated();
  }

  @AfterAll
  void dropDatabases() {
    Stream.of(mariaDb, postgres).filter(d -> d != null).forEach(TestDatabase::close);
  }

  /** By type name: JUnit would close (drop) an AutoCloseable argument after each test. */
  private TestDatabase database(String type) {
    return type.equals("mariadb") ? mariaDb : postgres;
  }

  private static String name() {
    return "fail-" + UUID.randomUUID().toString().substring(0, 13);
  }

  /** The database's URL with its port replaced. */
  private static String viaPort(TestDatabase db, int port) {
    URI uri = URI.create(db.url().substring("jdbc:".length()));
    return db.url().replace(":" + uri.getPort() + "/", ":" + port + "/");
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"mariadb", "postgres"})
  void openingAStoreWhoseDatabaseIsDownFails(String type) throws IOException {
    TestDatabase db = database(type);
    StoreSettings down = db.settings(viaPort(db, closedPort()), TIMEOUT);
    assertThatThrownBy(() -> new SqlStoreFactory().open(down))
        .isInstanceOf(LeaseStoreException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"mariadb", "postgres"})
  void everyCallOnADatabaseThatIsDownFails(String type) throws IOException {
    TestDatabase db = database(type);
    try (LeaseStore store = db.leaseStore(db.settings(viaPort(db, closedPort()), TIMEOUT))) {
      Lease lease = new Lease(name(), "n", "token", 1, TTL, null);
      assertFails(() -> store.claim(name(), Instant.EPOCH, "n", TTL));
      assertFails(() -> store.acquire(name(), "n", TTL));
      assertFails(() -> store.renew(lease, TTL));
      assertFails(() -> store.release(lease));
      assertFails(() -> store.inspect(name()));
      assertFails(store::list);
      assertThatThrownBy(() -> store.claim(name(), Instant.EPOCH, "n", TTL))
          .hasMessageStartingWith("SQL store: ")
          .hasMessageEndingWith("failed: no connection to the database: connection refused");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"mariadb", "postgres"})
  void aHungDatabaseMakesCallsFailAndTheStoreRecoversWhenItAnswersAgain(String type)
      throws IOException {
    TestDatabase db = database(type);
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", URI.create(db.url().substring(5)).getPort());
        LeaseStore store = db.leaseStore(db.settings(viaPort(db, proxy.port()), TIMEOUT))) {
      String name = name();
      Lease lease = store.acquire(name, "node-a", TTL).orElseThrow();
      proxy.freeze();
      assertFails(() -> store.renew(lease, TTL));
      assertFails(() -> store.claim(name(), Instant.EPOCH, "node-a", TTL));
      // a batch of claims (jobs due together) is one statement on the same bounded connection:
      // it ends with every claim failed, so the scheduler backs off and claims again
      List<ClaimResult> batch =
          store.claimAll(
              List.of(
                  new ClaimRequest(name(), Instant.EPOCH, "node-a", TTL),
                  new ClaimRequest(name(), Instant.EPOCH, "node-a", TTL)));
      assertThat(batch).extracting(ClaimResult::kind).containsOnly(ClaimResult.Kind.FAILED);
      proxy.thaw();
      eventually(() -> renews(store, lease));
      assertThat(store.inspect(name).orElseThrow().holder()).isEqualTo("node-a");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"mariadb", "postgres"})
  void droppedConnectionsFailClosed(String type) throws IOException {
    TestDatabase db = database(type);
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", URI.create(db.url().substring(5)).getPort());
        LeaseStore store = db.leaseStore(db.settings(viaPort(db, proxy.port()), TIMEOUT))) {
      String name = name();
      assertThat(store.claim(name, Instant.EPOCH, "node-a", TTL)).isPresent();
      proxy.close();
      assertFails(() -> store.claim(name(), Instant.EPOCH, "node-a", TTL));
      assertFails(() -> store.inspect(name));
    }
  }

  private static boolean renews(LeaseStore store, Lease lease) {
    try {
      return store.renew(lease, TTL);
    } catch (LeaseStoreException e) {
      return false;
    }
  }

  /** A store error, worded without the pool's internals (its name, its wait). */
  private static void assertFails(Supplier<?> call) {
    assertThatThrownBy(call::get)
        .isInstanceOf(LeaseStoreException.class)
        .message()
        .doesNotContain("HikariPool", "leasehold-", "Connection is not available");
  }

  private static void eventually(Supplier<Boolean> condition) {
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.get()) {
      assertThat(System.nanoTime()).as("recovered within 30 s").isLessThan(end);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
