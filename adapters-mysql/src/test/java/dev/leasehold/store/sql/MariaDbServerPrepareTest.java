package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store's statements on MariaDB are prepared on the server (the binary protocol) once per
 * pooled connection, not once per claim; a server that will not prepare them still decides every
 * claim (the driver then sends them as text).
 */
class MariaDbServerPrepareTest {
  private static final String ROOT = "jdbc:mariadb://127.0.0.1:3306/test";
  private static final Duration TTL = Duration.ofMinutes(1);
  private TestDatabase db;

  @BeforeEach
  void database() {
    db = TestDatabase.mariaDb();
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void claimsRunAsStatementsPreparedOncePerConnection() throws SQLException {
    try (StoreBackend store = db.open()) {
      LeaseStore leases = store.leaseStore();
      Instant firing = Instant.parse("2026-12-02T06:30:00Z");
      release(leases, leases.claim("digest", firing, "node-a", TTL).orElseThrow());
      long executed = status("Com_stmt_execute");
      long prepared = status("Com_stmt_prepare");
      for (int i = 1; i <= 5; i++) {
        release(leases, leases.claim("digest", firing.plusSeconds(i), "node-a", TTL).orElseThrow());
      }
      assertThat(status("Com_stmt_execute") - executed)
          .as("prepared statements executed by the server")
          .isGreaterThanOrEqualTo(5);
      assertThat(status("Com_stmt_prepare") - prepared)
          .as("statements prepared: once per pooled connection, not per claim")
          .isLessThan(5);
    }
  }

  @Test
  void aServerThatWillNotPrepareTheClaimGetsItAsTextAndEveryClaimIsDecided() throws SQLException {
    long limit = Long.parseLong(root("SELECT @@GLOBAL.max_prepared_stmt_count"));
    root("SET GLOBAL max_prepared_stmt_count = 0");
    try (StoreBackend store = db.open()) {
      LeaseStore leases = store.leaseStore();
      Instant firing = Instant.parse("2026-12-02T08:00:00Z");
      Lease first = leases.claim("check-in", firing, "node-a", TTL).orElseThrow();
      assertThat(leases.claim("check-in", firing.plusSeconds(60), "node-b", TTL)).isEmpty();
      release(leases, first);
      assertThat(leases.claim("check-in", firing, "node-b", TTL)).as("already run").isEmpty();
      Lease next = leases.claim("check-in", firing.plusSeconds(60), "node-b", TTL).orElseThrow();
      assertThat(next.fence()).isEqualTo(first.fence() + 1);
    } finally {
      root("SET GLOBAL max_prepared_stmt_count = " + limit);
    }
  }

  private static void release(LeaseStore leases, Lease lease) {
    assertThat(leases.release(lease)).isTrue();
  }

  private static long status(String name) throws SQLException {
    return Long.parseLong(root("SHOW GLOBAL STATUS LIKE '" + name + "'", 2));
  }

  private static String root(String sql) throws SQLException {
    return root(sql, 1);
  }

  private static String root(String sql, int column) throws SQLException {
    try (Connection c = DriverManager.getConnection(ROOT, "root", null);
        Statement st = c.createStatement()) {
      if (!st.execute(sql)) {
        return null;
      }
      try (ResultSet rs = st.getResultSet()) {
        rs.next();
        return rs.getString(column);
      }
    }
  }
}
