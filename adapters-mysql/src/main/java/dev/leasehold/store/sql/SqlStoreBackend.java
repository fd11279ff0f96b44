package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;

/** An opened SQL store: leases and history on one connection pool, closed together. */
final class SqlStoreBackend implements StoreBackend {
  private final HikariDataSource pool;
  private final SqlLeaseStore leaseStore;
  private final SqlExecutionLog executionLog;
  private final DSLContext db;

  SqlStoreBackend(HikariDataSource pool, SqlDialect dialect) {
    this.pool = pool;
    // the pool belongs to the backend: closing the lease store alone leaves it open
    this.leaseStore = new SqlLeaseStore(pool, dialect, () -> {});
    this.executionLog = new SqlExecutionLog(pool, dialect.jooq);
    this.db = SqlSupport.dsl(pool, dialect.jooq);
  }

  @Override
  public LeaseStore leaseStore() {
    return leaseStore;
  }

  @Override
  public ExecutionLog executionLog() {
    return executionLog;
  }

  @Override
  public void ping() {
    try {
      db.selectOne().fetch();
    } catch (DataAccessException e) {
      throw SqlSupport.failure("ping", e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
