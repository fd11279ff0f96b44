package dev.leasehold.store.sql;

import dev.leasehold.core.lease.LeaseStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * MySQL (and MariaDB when configured as {@code mysql}): no {@code RETURNING}, so a single claim
 * carries its answer in the OK packet. Every branch of the upsert calls {@code LAST_INSERT_ID(x)},
 * whose value the server sends back as the statement's insert id:
 *
 * <ul>
 *   <li>a first claim inserts the row with {@code fence = LAST_INSERT_ID(1)} (1 row changed);
 *   <li>a won claim of an existing row sets {@code fence = LAST_INSERT_ID(fence + 1)} (2 rows);
 *   <li>a refused claim leaves the row as it is and sets {@code LAST_INSERT_ID} to {@link #HELD} or
 *       {@link #ALREADY_RUN} plus the watermark (1 row found, or 0 with {@code useAffectedRows}).
 * </ul>
 *
 * Any other combination of insert id and row count means the server did not do what the statement
 * says, and the claim fails closed. A batch runs the upsert for all its rows, then reads the rows
 * back with one SELECT (two statements): the rows carrying the batch's tokens are the ones won.
 */
final class MySqlClaims extends ClaimStatements {
  /** Refusal codes: far above any fence a table will reach. */
  static final long HELD = 1L << 61;

  static final long ALREADY_RUN = 1L << 62;

  /** Added to the watermark's epoch milliseconds (years 1000-9999 fit either side of it). */
  static final long WATERMARK_OFFSET = 1L << 49;

  /** Sets the refusal code from the row as found (evaluated before {@code last_fire} is set). */
  static final String REFUSAL =
      "LAST_INSERT_ID(IF(VALUES(last_fire) IS NOT NULL AND last_fire >= VALUES(last_fire), "
          + ALREADY_RUN
          + ", "
          + HELD
          + ") + IF(last_fire IS NULL, 0, "
          + WATERMARK_OFFSET
          + " + TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', last_fire) DIV 1000))";

  MySqlClaims() {
    super(MYSQL_NOW, "(" + MYSQL_NOW + " + INTERVAL ? * 1000 MICROSECOND)", n -> upsert(n, n == 1));
  }

  @Override
  List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException {
    return batch.size() == 1 ? List.of(single(c, batch.get(0))) : several(c, batch);
  }

  private ClaimRow single(Connection c, ClaimAttempt a) throws SQLException {
    long id;
    int changed;
    try (PreparedStatement ps = c.prepareStatement(claimSql(1), Statement.RETURN_GENERATED_KEYS)) {
      bindAttempts(ps, List.of(a), 1000);
      changed = ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        id = keys.next() ? keys.getLong(1) : 0;
      }
    }
    if (id >= 1 && id < HELD && (id == 1 ? changed == 1 : changed == 2)) {
      return new ClaimRow(a.name(), a.token(), a.holder(), id, a.firing(), null);
    }
    if (id >= HELD && (changed == 0 || changed == 1)) {
      long code = id >= ALREADY_RUN ? id - ALREADY_RUN : id - HELD;
      Instant watermark = code == 0 ? null : Instant.ofEpochMilli(code - WATERMARK_OFFSET);
      return new ClaimRow(a.name(), null, null, 0, watermark, null);
    }
    throw new LeaseStoreException(
        "SQL store: claim of "
            + a.name()
            + ": the server's answer does not fit the claim statement (insert id "
            + id
            + ", "
            + changed
            + " rows changed; expected 1 and 1, a fence and 2, or a refusal code and at most 1):"
            + " the server or the task_lock table does not behave as MySQL; claim refused");
  }

  private List<ClaimRow> several(Connection c, List<ClaimAttempt> batch) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
      bindAttempts(ps, batch, 1000);
      ps.executeUpdate();
    }
    return read(c, batch);
  }
}
