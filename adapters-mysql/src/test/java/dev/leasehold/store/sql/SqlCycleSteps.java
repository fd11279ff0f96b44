package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;

/**
 * Where the time of one claim + release cycle goes on MariaDB and PostgreSQL, next to ShedLock's
 * {@code lock()} + {@code unlock()} (a measurement, run by hand, never by surefire). One thread,
 * one JVM, the contenders' 1-second windows interleaved round by round, so that a change of load
 * meets all of them alike:
 *
 * <ul>
 *   <li>{@code shedlock}: ShedLock's plain-JDBC provider (the baseline);
 *   <li>{@code store}: the store's {@code tryClaim} + {@code release};
 *   <li>{@code dialect}: the dialect's single claim and the release statement through JDBC, without
 *       the store's code around them (argument checks, sorting, deciding the answer);
 *   <li>{@code updateKeep}: the same {@code UPDATE}, and a release that only ends the lease (holder
 *       and token stay: no row changes its length, as none of ShedLock's does);
 *   <li>{@code upsert}: the dialect's full claim statement for one name (what a batch and a name's
 *       first claim run: the upsert with {@code RETURNING}) and the release statement;
 *   <li>{@code update}: a guarded {@code UPDATE} of {@code task_lock} without an answer (the shape
 *       of ShedLock's statement on the store's table) and the release statement;
 *   <li>{@code shedlockText}, {@code dialectText} (MariaDB): ShedLock and the dialect's single
 *       claim on a pool that sends every statement as text, the driver's default (the store's pool
 *       prepares them on the server).
 * </ul>
 *
 * <pre>
 * java -cp ... dev.leasehold.store.sql.SqlCycleSteps [mariadb,postgres] [rounds] [millis]
 * </pre>
 */
public final class SqlCycleSteps {
  private static final Duration TTL = Duration.ofMinutes(10);
  private static final String NAME = "cycle";

  private SqlCycleSteps() {}

  public static void main(String[] args) throws Exception {
    List<String> vendors =
        Arrays.asList((args.length > 0 ? args[0] : "mariadb,postgres").split(","));
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    long millis = args.length > 2 ? Long.parseLong(args[2]) : 1000;
    for (String vendor : vendors) {
      try (TestDatabase db =
          switch (vendor) {
            case "mariadb" -> TestDatabase.mariaDb();
            case "postgres" -> TestDatabase.postgres();
            default -> throw new IllegalArgumentException("unknown database " + vendor);
          }) {
        measure(vendor, db, rounds, millis);
      }
    }
  }

  private static void measure(String vendor, TestDatabase db, int rounds, long millis)
      throws Exception {
    StoreSettings settings = db.settings(db.url(), Duration.ofSeconds(60));
    List<AutoCloseable> closing = new ArrayList<>();
    try (StoreBackend backend = new SqlStoreFactory().open(settings);
        HikariDataSource pool =
            SqlStoreFactory.pool(db.vendor, settings, settings.commandTimeout(), 10, "steps")) {
      LeaseStore store = backend.leaseStore();
      backend.ping();
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL,"
                + " locked_at TIMESTAMP(3) NOT NULL, locked_by VARCHAR(255) NOT NULL,"
                + " PRIMARY KEY (name))");
      }
      JdbcLockProvider shedlock = new JdbcLockProvider(pool);
      SqlDialect dialect = db.vendor;
      long[] firing = {1_000_000_000_000L};
      boolean pg = dialect == SqlDialect.POSTGRES;
      String ts = pg ? "CAST(? AS TIMESTAMP(3))" : "?";
      String update =
          "UPDATE task_lock SET holder = ?, token = ?, fence = fence + 1, last_fire = "
              + ts
              + ", lease_until = "
              + dialect.now
              + (pg
                  ? " + CAST(? AS BIGINT) * INTERVAL '1 millisecond'"
                  : " + INTERVAL ? MICROSECOND")
              + " WHERE lock_key = ? AND lease_until <= "
              + dialect.now
              + " AND last_fire < "
              + ts;
      Map<String, Runnable> contenders = new LinkedHashMap<>();
      contenders.put("shedlock", shedlockCycle(shedlock));
      contenders.put(
          "store",
          () -> {
            Lease lease =
                store
                    .tryClaim(NAME, Instant.ofEpochMilli(firing[0]++), "n", TTL)
                    .leaseIfWon()
                    .orElseThrow();
            if (!store.release(lease)) {
              throw new IllegalStateException("release refused");
            }
          });
      contenders.put("dialect", dialectCycle(pool, dialect, firing));
      contenders.put("update", updateCycle(pool, update, dialect.release, pg, firing));
      String keepRelease =
          "UPDATE task_lock SET lease_until = " + dialect.now + " WHERE lock_key = ? AND token = ?";
      contenders.put("updateKeep", updateCycle(pool, update, keepRelease, pg, firing));
      contenders.put(
          "upsert",
          () -> {
            ClaimAttempt a = attempt(firing);
            try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(dialect.claimSql(1))) {
              ClaimSql.bindAttempts(ps, List.of(a), pg ? 1 : 1000);
              won(a, ClaimSql.rows(ps));
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
            release(pool, dialect.release, a);
          });
      if (!pg) {
        // the same on a pool that sends every statement as text (the driver's default)
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(settings.username());
        config.setConnectionInitSql(dialect.utcSessionSql);
        config.setMaximumPoolSize(10);
        config.addDataSourceProperty("useServerPrepStmts", "false");
        HikariDataSource text = new HikariDataSource(config);
        closing.add(text);
        contenders.put("shedlockText", shedlockCycle(new JdbcLockProvider(text)));
        contenders.put("dialectText", dialectCycle(text, dialect, firing));
      }
      // the row exists before any window; warm-up: JIT, pools, prepared statements
      for (Runnable op : contenders.values()) {
        window(op, millis * 2);
      }
      Map<String, List<Long>> ops = new LinkedHashMap<>();
      contenders.keySet().forEach(k -> ops.put(k, new ArrayList<>()));
      for (int r = 0; r < rounds; r++) {
        for (Map.Entry<String, Runnable> e : contenders.entrySet()) {
          ops.get(e.getKey()).add(window(e.getValue(), millis));
        }
      }
      double base = rate(ops.get("shedlock"), millis);
      System.out.printf("%s, %d rounds of %d ms windows, one thread:%n", vendor, rounds, millis);
      for (Map.Entry<String, List<Long>> e : ops.entrySet()) {
        double rate = rate(e.getValue(), millis);
        System.out.printf(
            "  %-12s %7.0f cycles/s  %6.1f µs/cycle  %.2f × ShedLock  (median window %.2f ×)%n",
            e.getKey(),
            rate,
            1e6 / rate,
            rate / base,
            medianRatio(e.getValue(), ops.get("shedlock")));
      }
    } finally {
      for (AutoCloseable c : closing) {
        c.close();
      }
    }
  }

  private static Runnable shedlockCycle(JdbcLockProvider shedlock) {
    return () ->
        shedlock
            .lock(new LockConfiguration(ClockProvider.now(), NAME, TTL, Duration.ZERO))
            .orElseThrow()
            .unlock();
  }

  /** The guarded {@code update} without an answer, then {@code release}. */
  private static Runnable updateCycle(
      HikariDataSource pool, String update, String release, boolean pg, long[] firing) {
    return () -> {
      ClaimAttempt a = attempt(firing);
      try (Connection c = pool.getConnection();
          PreparedStatement ps = c.prepareStatement(update)) {
        LocalDateTime at = LocalDateTime.ofInstant(a.firing(), ZoneOffset.UTC);
        ps.setString(1, a.holder());
        ps.setString(2, a.token());
        ps.setObject(3, at);
        ps.setLong(4, pg ? a.ttlMillis() : a.ttlMillis() * 1000);
        ps.setString(5, a.name());
        ps.setObject(6, at);
        if (ps.executeUpdate() != 1) {
          throw new IllegalStateException("update took no row");
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      release(pool, release, a);
    };
  }

  /** The dialect's single claim and the release statement, through JDBC on {@code pool}. */
  private static Runnable dialectCycle(HikariDataSource pool, SqlDialect dialect, long[] firing) {
    return () -> {
      ClaimAttempt a = attempt(firing);
      try (Connection c = pool.getConnection()) {
        won(a, dialect.claim(c, List.of(a)));
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      release(pool, dialect.release, a);
    };
  }

  private static void won(ClaimAttempt a, List<ClaimRow> rows) {
    if (rows.size() != 1 || !a.token().equals(rows.get(0).token())) {
      throw new IllegalStateException("claim not won: " + rows);
    }
  }

  private static ClaimAttempt attempt(long[] firing) {
    return new ClaimAttempt(
        NAME, Instant.ofEpochMilli(firing[0]++), "n", LeaseArguments.newToken(), TTL.toMillis());
  }

  private static void release(HikariDataSource pool, String statement, ClaimAttempt a) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setString(1, a.name());
      ps.setString(2, a.token());
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("release refused");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The median over rounds of this contender's window next to ShedLock's window of the round. */
  private static double medianRatio(List<Long> counts, List<Long> baseline) {
    double[] ratios = new double[counts.size()];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = (double) counts.get(i) / baseline.get(i);
    }
    Arrays.sort(ratios);
    return ratios[ratios.length / 2];
  }

  private static double rate(List<Long> counts, long millis) {
    return counts.stream().mapToLong(Long::longValue).sum() * 1000.0 / (counts.size() * millis);
  }

  private static long window(Runnable op, long millis) {
    long end = System.nanoTime() + millis * 1_000_000;
    long n = 0;
    while (System.nanoTime() < end) {
      op.run();
      n++;
    }
    return n;
  }
}
