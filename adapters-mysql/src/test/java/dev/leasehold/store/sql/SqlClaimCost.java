package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;

/**
 * What a claim costs on each SQL database next to ShedLock's plain-JDBC provider on the same
 * database, measured in one run with interleaved windows (a measurement, run by hand, never by
 * surefire; see docs/stores/sql.md, "Cost per claim"):
 *
 * <ul>
 *   <li>claim cycle, one thread: {@code tryClaim} of a fresh firing + {@code release}, against
 *       ShedLock's {@code lock()} + {@code unlock()};
 *   <li>1,000 names due at once: one {@code claimAll} of 1,000 names, against ShedLock taking them
 *       one by one ({@code lock()} per name); releases/unlocks between rounds are not timed;
 *   <li>on MariaDB, the statements one firing costs with three replicas (three claims, one history
 *       record, one release), counted in the server's general log.
 * </ul>
 *
 * <pre>
 * java -cp ... dev.leasehold.store.sql.SqlClaimCost [h2,mariadb,postgres] [windows] [millis]
 * </pre>
 */
public final class SqlClaimCost {
  private static final Duration TTL = Duration.ofMinutes(10);
  private static final int BURST = 1000;

  private SqlClaimCost() {}

  public static void main(String[] args) throws Exception {
    List<String> vendors =
        Arrays.asList((args.length > 0 ? args[0] : "h2,mariadb,postgres").split(","));
    int windows = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    long millis = args.length > 2 ? Long.parseLong(args[2]) : 1000;
    for (String vendor : vendors) {
      try (TestDatabase db = database(vendor)) {
        measure(vendor, db, windows, millis);
        if (vendor.equals("mariadb")) {
          countStatements(db);
        }
      }
    }
  }

  private static TestDatabase database(String vendor) {
    return switch (vendor) {
      case "h2" -> TestDatabase.h2();
      case "mariadb" -> TestDatabase.mariaDb();
      case "postgres" -> TestDatabase.postgres();
      default -> throw new IllegalArgumentException("unknown database " + vendor);
    };
  }

  private static void measure(String vendor, TestDatabase db, int windows, long millis)
      throws Exception {
    // generous timeouts: this runs on shared, loaded machines
    StoreSettings settings = db.settings(db.url(), Duration.ofSeconds(60));
    try (StoreBackend backend = new SqlStoreFactory().open(settings);
        HikariDataSource shedPool =
            SqlStoreFactory.pool(db.vendor, settings, settings.commandTimeout(), 10, "shedlock")) {
      LeaseStore store = backend.leaseStore();
      backend.ping();
      createShedLockTable(shedPool, db.vendor);
      JdbcLockProvider shedlock = new JdbcLockProvider(shedPool);
      long[] firing = {1_000_000_000_000L};
      Runnable lh =
          () -> {
            Lease lease =
                store
                    .tryClaim("cycle", Instant.ofEpochMilli(firing[0]++), "n", TTL)
                    .leaseIfWon()
                    .orElseThrow();
            if (!store.release(lease)) {
              throw new IllegalStateException("release refused");
            }
          };
      Runnable sl =
          () -> {
            SimpleLock lock =
                shedlock
                    .lock(new LockConfiguration(ClockProvider.now(), "cycle", TTL, Duration.ZERO))
                    .orElseThrow();
            lock.unlock();
          };
      // warm-up: JIT, pools, prepared statements
      window(lh, millis * 3);
      window(sl, millis * 3);
      long lhOps = 0;
      long slOps = 0;
      for (int w = 0; w < windows; w++) {
        lhOps += window(lh, millis);
        slOps += window(sl, millis);
      }
      double seconds = windows * millis / 1000.0;
      System.out.printf(
          "%s claim cycle, 1 thread: Leasehold %.0f/s, ShedLock %.0f/s, ratio %.2f%n",
          vendor, lhOps / seconds, slOps / seconds, (double) lhOps / slOps);
      burst(vendor, store, shedlock, firing, Math.max(3, windows / 2));
    }
  }

  private static long window(Runnable op, long millis) {
    long end = System.nanoTime() + millis * 1_000_000;
    long ops = 0;
    while (System.nanoTime() < end) {
      op.run();
      ops++;
    }
    return ops;
  }

  private static void burst(
      String vendor, LeaseStore store, JdbcLockProvider shedlock, long[] firing, int rounds) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      names.add("burst-" + i);
    }
    long[] lh = new long[rounds + 1];
    long[] sl = new long[rounds + 1];
    for (int r = 0; r <= rounds; r++) { // round 0 creates the rows and warms up
      Instant due = Instant.ofEpochMilli(firing[0]++);
      List<ClaimRequest> batch =
          names.stream().map(n -> new ClaimRequest(n, due, "n", TTL)).toList();
      long t0 = System.nanoTime();
      List<ClaimResult> results = store.claimAll(batch);
      lh[r] = System.nanoTime() - t0;
      for (ClaimResult result : results) {
        if (!store.release(result.leaseIfWon().orElseThrow())) {
          throw new IllegalStateException("release refused");
        }
      }
      List<SimpleLock> locks = new ArrayList<>(BURST);
      t0 = System.nanoTime();
      for (String name : names) {
        Optional<SimpleLock> lock =
            shedlock.lock(new LockConfiguration(ClockProvider.now(), name, TTL, Duration.ZERO));
        locks.add(lock.orElseThrow());
      }
      sl[r] = System.nanoTime() - t0;
      locks.forEach(SimpleLock::unlock);
    }
    long lhMedian = median(Arrays.copyOfRange(lh, 1, lh.length));
    long slMedian = median(Arrays.copyOfRange(sl, 1, sl.length));
    System.out.printf(
        "%s %d names due at once (median of %d rounds): Leasehold claimAll %.1f ms, ShedLock one"
            + " by one %.1f ms, ratio %.3f%n",
        vendor, BURST, rounds, lhMedian / 1e6, slMedian / 1e6, (double) lhMedian / slMedian);
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static void createShedLockTable(HikariDataSource pool, SqlDialect vendor)
      throws SQLException {
    String time =
        vendor == SqlDialect.H2 || vendor == SqlDialect.POSTGRES ? "TIMESTAMP" : "TIMESTAMP(3)";
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until "
              + time
              + " NOT NULL, locked_at "
              + time
              + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
    }
  }

  /**
   * Three replicas (three stores, each with its own pool) take one firing: three claims, the
   * winner's history record and release. Counts the Query/Execute lines of the general log from the
   * connections to this test's database while the firing ran.
   */
  private static void countStatements(TestDatabase db) throws Exception {
    try (HikariDataSource admin =
            SqlStoreFactory.pool(db.vendor, db.settings(), TestDatabase.TIMEOUT, 1, "admin");
        Connection c = admin.getConnection();
        Statement s = c.createStatement()) {
      String output = scalar(s, "SELECT @@GLOBAL.log_output");
      String on = scalar(s, "SELECT @@GLOBAL.general_log");
      s.execute("SET GLOBAL log_output = 'TABLE'");
      s.execute("SET GLOBAL general_log = 1");
      List<StoreBackend> replicas = new ArrayList<>();
      String from;
      String to;
      try {
        for (int i = 0; i < 3; i++) {
          replicas.add(db.open());
          replicas.get(i).ping();
        }
        // one firing before counting: every replica has claimed the name once
        fire(replicas, Instant.parse("2026-11-30T00:00:00Z"));
        from = scalar(s, "SELECT NOW(6)");
        fire(replicas, Instant.parse("2026-11-30T00:01:00Z"));
        to = scalar(s, "SELECT NOW(6)");
      } finally {
        s.execute("SET GLOBAL general_log = " + on);
        s.execute("SET GLOBAL log_output = '" + output + "'");
        replicas.forEach(StoreBackend::close);
      }
      String dbName = db.url().substring(db.url().lastIndexOf('/') + 1);
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT argument FROM mysql.general_log WHERE event_time > ? AND event_time < ?"
                  + " AND command_type IN ('Query', 'Execute') AND thread_id IN (SELECT thread_id"
                  + " FROM mysql.general_log WHERE command_type = 'Connect' AND argument LIKE ?)"
                  + " AND argument NOT LIKE 'SELECT NOW(6)%'")) {
        ps.setString(1, from);
        ps.setString(2, to);
        ps.setString(3, "%" + dbName + "%");
        int count = 0;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            count++;
            String sql = rs.getString(1);
            System.out.println("  " + sql.substring(0, Math.min(90, sql.length())) + " ...");
          }
        }
        System.out.println(
            "mariadb statements per firing, 3 replicas (claims, history, release): " + count);
      }
    }
  }

  private static void fire(List<StoreBackend> replicas, Instant firing) {
    Lease won = null;
    for (StoreBackend replica : replicas) {
      Optional<Lease> lease =
          replica.leaseStore().tryClaim("counted", firing, "n", TTL).leaseIfWon();
      if (lease.isPresent()) {
        won = lease.get();
        replica
            .executionLog()
            .record(
                new ExecutionRecord(
                    "counted",
                    firing,
                    "n",
                    won.fence(),
                    TriggerKind.SCHEDULED,
                    firing,
                    firing.plusMillis(5),
                    Outcome.SUCCEEDED,
                    0,
                    null));
        replica.leaseStore().release(won);
      }
    }
    if (won == null) {
      throw new IllegalStateException("no replica won the firing");
    }
  }

  private static String scalar(Statement s, String query) throws SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
