package dev.leasehold.store.sql;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.ConnectFailures;
import java.net.ConnectException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
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
   * Whether the database aborted a statement for a race that running it again resolves: a
   * primary-key violation (SQLState 23505 on H2 and PostgreSQL, MariaDB/MySQL error 1062), a
   * deadlock or serialization failure (SQLState 40001, 40P01; MariaDB/MySQL error 1213). In
   * autocommit the aborted statement changed nothing.
   */
  static boolean isRace(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if ("23505".equals(state)
            || "40001".equals(state)
            || "40P01".equals(state)
            || sql.getErrorCode() == 1062
            || sql.getErrorCode() == 1213) {
          return true;
        }
      }
    }
    return false;
  }

  /** The exception callers see for any database failure: fail closed, never "held". */
  static LeaseStoreException failure(String what, Exception cause) {
    return new LeaseStoreException("SQL store: " + what + " failed: " + describe(cause), cause);
  }

  /**
   * What went wrong, in plain words when no connection could be had (the database down or
   * unreachable: "no connection to the database: connection refused") instead of the pool's own
   * wording (its pool name and wait); otherwise the driver's message.
   */
  static String describe(Throwable failure) {
    boolean connection = false;
    for (Throwable t = failure; t != null && !connection; t = t.getCause()) {
      connection =
          t instanceof SQLTransientConnectionException
              || t instanceof SQLNonTransientConnectionException
              || t instanceof ConnectException;
    }
    String reason = connection ? ConnectFailures.reason(failure, null) : null;
    return reason == null ? failure.getMessage() : "no connection to the database: " + reason;
  }

  /**
   * A time column as {@link Tables#UTC} reads it, for statements run through plain JDBC: the
   * column's wall time is UTC, read as {@code LocalDateTime} (never {@code java.sql.Timestamp}).
   */
  static Instant instant(ResultSet rs, int column) throws SQLException {
    return ClaimSql.instant(rs.getObject(column, LocalDateTime.class));
  }

  /** Reads one row of a result set; the cursor is on the row. */
  @FunctionalInterface
  interface Row<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** Every row {@code ps} selects, each read by {@code row}, in the order of the result. */
  static <T> List<T> rows(PreparedStatement ps, Row<T> row) throws SQLException {
    List<T> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(row.read(rs));
      }
    }
    return rows;
  }

  /** An instant as {@link Tables#UTC} binds it: UTC wall time at millisecond precision. */
  static LocalDateTime utc(Instant instant) {
    return LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC);
  }
}
