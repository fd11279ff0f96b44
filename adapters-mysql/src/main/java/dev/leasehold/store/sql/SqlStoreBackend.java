package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.core.store.StoreBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/** An opened SQL store: leases and history on one connection pool, closed together. */
final class SqlStoreBackend implements StoreBackend {
  private final HikariDataSource pool;
  private final SqlLeaseStore leaseStore;
  private final SqlExecutionLog executionLog;
  private final SqlJournal journal;
  private final Rendered ping;
  private final Optional<RequestSignals> signals;

  SqlStoreBackend(HikariDataSource pool, SqlDialect dialect) {
    this.pool = pool;
    // the pool belongs to the backend: closing the lease store alone leaves it open
    this.leaseStore = new SqlLeaseStore(pool, dialect, () -> {});
    this.executionLog = new SqlExecutionLog(pool, dialect.jooq);
    this.journal = new SqlJournal(SqlSupport.dsl(pool, dialect.jooq), pool);
    this.ping = Rendered.by(() -> SqlSupport.dsl(pool, dialect.jooq).selectOne().getSQL());
    this.signals = dialect.requestSignals(pool);
  }

  @Override
  public LeaseStore leaseStore() {
    return leaseStore;
  }

  /** Every part: pauses, node records and forgetting, all by the lease store's client. */
  @Override
  public Optional<Pauses> pauses() {
    return Optional.of(leaseStore);
  }

  @Override
  public Optional<NodeRecords> nodeRecords() {
    return Optional.of(leaseStore);
  }

  @Override
  public Optional<Forgetting> forgetting() {
    return Optional.of(leaseStore);
  }

  /** The journal, in tables of its own on the same pool ({@link SqlJournal}). */
  @Override
  public Optional<Journal> journal() {
    return Optional.of(journal);
  }

  /** PostgreSQL's {@code LISTEN/NOTIFY} ({@link PostgresSignals}); none on the other databases. */
  @Override
  public Optional<RequestSignals> requestSignals() {
    return signals;
  }

  @Override
  public ExecutionLog executionLog() {
    return executionLog;
  }

  @Override
  public void ping() {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(ping.get());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
    } catch (SQLException e) {
      throw SqlSupport.failure("ping", e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
