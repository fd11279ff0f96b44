package dev.leasehold.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.sql.SqlStoreFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

/**
 * The SQL store on H2 (in memory, in this JVM), MariaDB (database {@code lh_bench}) and PostgreSQL
 * (schema {@code lh_bench} of database {@code test}), next to a bare statement on a HikariCP pool
 * of the same size and ShedLock's plain-JDBC {@link JdbcLockProvider} with its {@code shedlock}
 * table in the same database.
 */
public class SqlBench extends LeaseBench {
  private static final int POOL_SIZE = 5;
  private static final int MAX_THREADS = 16;

  @Param({"h2", "mariadb", "postgres"})
  public String database;

  private HikariDataSource raw;
  private HikariDataSource shedlockPool;
  private JdbcLockProvider shedlock;

  @Override
  protected StoreBackend open() throws SQLException {
    String url = prepareDatabase();
    String user = database.equals("h2") ? null : database.equals("mariadb") ? "root" : "postgres";
    StoreBackend backend =
        new SqlStoreFactory()
            .open(
                new StoreSettings(
                    database, url, List.of(), user, null, null, Duration.ofSeconds(5), Map.of()));
    raw = pool(url, user, "bench-raw");
    shedlockPool = pool(url, user, "bench-shedlock");
    shedlock = new JdbcLockProvider(shedlockPool);
    createBenchTables();
    return backend;
  }

  /** Creates the dedicated database or schema when missing and returns its JDBC URL. */
  private String prepareDatabase() throws SQLException {
    switch (database) {
      case "h2":
        return "jdbc:h2:mem:lh_bench;DB_CLOSE_DELAY=-1";
      case "mariadb":
        requireServer("MariaDB", 3306);
        admin(
            "jdbc:mariadb://127.0.0.1:3306/test", "root", "CREATE DATABASE IF NOT EXISTS lh_bench");
        return "jdbc:mariadb://127.0.0.1:3306/lh_bench";
      case "postgres":
        requireServer("PostgreSQL", 5432);
        admin(
            "jdbc:postgresql://127.0.0.1:5432/test",
            "postgres",
            "CREATE SCHEMA IF NOT EXISTS lh_bench");
        return "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=lh_bench";
      default:
        throw new IllegalArgumentException("unknown database " + database);
    }
  }

  private static void admin(String url, String user, String ddl) throws SQLException {
    try (HikariDataSource pool = pool(url, user, "bench-admin");
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(ddl);
    }
  }

  /** The raw table (one row per thread) and ShedLock's table, as its README creates it. */
  private void createBenchTables() throws SQLException {
    String time = database.equals("mariadb") ? "TIMESTAMP(3)" : "TIMESTAMP";
    try (Connection c = raw.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS lh_bench_raw"
              + " (id VARCHAR(100) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until "
              + time
              + " NOT NULL, locked_at "
              + time
              + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
      for (int t = 0; t < MAX_THREADS; t++) {
        s.execute("INSERT INTO lh_bench_raw (id, n) VALUES ('" + RUN + "-t" + t + "-u', 0)");
      }
    }
  }

  @Override
  protected void close() throws SQLException {
    try (Connection c = raw.getConnection()) {
      for (String sql :
          List.of(
              "DELETE FROM task_lock WHERE lock_key LIKE ?",
              "DELETE FROM shedlock WHERE name LIKE ?",
              "DELETE FROM lh_bench_raw WHERE id LIKE ?")) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setString(1, RUN + "%");
          ps.executeUpdate();
        }
      }
    } finally {
      raw.close();
      shedlockPool.close();
    }
  }

  /** A pool like the store's own: HikariCP, autocommit, READ COMMITTED, same size. */
  private static HikariDataSource pool(String url, String user, String name) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setAutoCommit(true);
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setMaximumPoolSize(POOL_SIZE);
    config.setMinimumIdle(1);
    return new HikariDataSource(config);
  }

  /** The floor: one round trip that touches no table. */
  @Benchmark
  public int raw_select1() throws SQLException {
    try (Connection c = raw.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT 1");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** One autocommitted single-row UPDATE by primary key, the shape of a claim. */
  @Benchmark
  public boolean raw_update(Slot slot) throws SQLException {
    try (Connection c = raw.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE lh_bench_raw SET n = n + 1 WHERE id = ?")) {
      ps.setString(1, slot.name + "-u");
      return expect(ps.executeUpdate() == 1, "raw update");
    }
  }

  @Benchmark
  public boolean shedlock_lockUnlock(Slot slot) {
    return shedlockLockUnlock(shedlock, slot);
  }

  @Override
  protected Optional<LockProvider> shedlock() {
    return Optional.of(shedlock);
  }
}
