package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The high-water trigger on MariaDB is created when the store opens, not by a migration: a service
 * account without the {@code TRIGGER} privilege still opens the store and claims (a row deleted by
 * hand then loses its watermark, as the WARN says), and the next open with the privilege adds the
 * trigger.
 */
class MariaDbHighWaterTriggerTest {
  private static final String ROOT = "jdbc:mariadb://127.0.0.1:3306/test";
  private TestDatabase db;
  private String user;
  private final String password = "pw-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeEach
  void limitedUser() throws SQLException {
    db = TestDatabase.mariaDb();
    user = "lh_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    String schema = db.url().substring(db.url().lastIndexOf('/') + 1);
    root(
        "CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'",
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX, DROP, REFERENCES ON `"
            + schema
            + "`.* TO '"
            + user
            + "'@'%'");
  }

  @AfterEach
  void drop() throws SQLException {
    root("DROP USER IF EXISTS '" + user + "'@'%'");
    db.close();
  }

  @Test
  void withoutTheTriggerPrivilegeTheStoreOpensAndClaimsAndAGrantAddsTheTriggerAtTheNextOpen()
      throws SQLException {
    try (StoreBackend store = open()) {
      LeaseStore leases = store.leaseStore();
      Instant firing = Instant.parse("2026-11-30T06:30:00Z");
      assertThat(leases.claim("digest", firing, "node-a", Duration.ofMinutes(1))).isPresent();
    }
    assertThat(triggers()).isZero();

    String schema = db.url().substring(db.url().lastIndexOf('/') + 1);
    root("GRANT TRIGGER ON `" + schema + "`.* TO '" + user + "'@'%'");
    open().close();
    assertThat(triggers()).isEqualTo(1);
    open().close(); // found, not created twice
    assertThat(triggers()).isEqualTo(1);
  }

  private StoreBackend open() {
    return new SqlStoreFactory()
        .open(
            new StoreSettings(
                "mariadb",
                db.url(),
                List.of(),
                user,
                password,
                null,
                TestDatabase.TIMEOUT,
                Map.of()));
  }

  private long triggers() throws SQLException {
    String schema = db.url().substring(db.url().lastIndexOf('/') + 1);
    try (Connection c = DriverManager.getConnection(ROOT, "root", null);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '"
                    + schema
                    + "' AND TRIGGER_NAME = 'task_lock_keep_high_water'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void root(String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(ROOT, "root", null);
        Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }
}
