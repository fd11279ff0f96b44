package dev.leasehold.store.sql;

import dev.leasehold.core.lease.LeaseStoreException;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/** jOOQ setup and error translation shared by the SQL store's classes. */
final class SqlSupport {
  private SqlSupport() {}

  /**
   * A jOOQ context over {@code dataSource}. Execute logging is off: at DEBUG it would print bind
   * values, and lease tokens are secrets.
   */
  static DSLContext dsl(DataSource dataSource, SQLDialect dialect) {
    Settings settings = new Settings().withExecuteLogging(false).withRenderSchema(false);
    return DSL.using(dataSource, dialect, settings);
  }

  /**
   * Whether {@code e} is a primary-key violation: SQLState 23505 (H2, PostgreSQL) or MariaDB/MySQL
   * error 1062 (SQLState 23000).
   */
  static boolean isDuplicateKey(DataAccessException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && ("23505".equals(sql.getSQLState()) || sql.getErrorCode() == 1062)) {
        return true;
      }
    }
    return false;
  }

  /** The exception callers see for any database failure: fail closed, never "held". */
  static LeaseStoreException failure(String what, RuntimeException cause) {
    return new LeaseStoreException("SQL store: " + what + " failed: " + cause.getMessage(), cause);
  }
}
