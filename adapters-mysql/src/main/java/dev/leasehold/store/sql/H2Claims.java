package dev.leasehold.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * H2: {@code MERGE INTO ... USING (VALUES ...) WHEN MATCHED AND <free and older> THEN UPDATE WHEN
 * NOT MATCHED THEN INSERT}, read through {@code FINAL TABLE}: one statement takes the free names
 * and returns their rows. The names it did not take are read by a second SELECT, only when there
 * are any: H2 runs in this JVM (no round trip), and it parses a union of the two anew on every call
 * (several times slower than the pair here), while each alone stays in its query cache.
 */
final class H2Claims extends ClaimStatements {
  private static final String NOW = "CAST(CURRENT_TIMESTAMP(3) AS TIMESTAMP(3))";

  H2Claims() {
    super(NOW, "DATEADD(MILLISECOND, CAST(? AS BIGINT), " + NOW + ")", H2Claims::render);
  }

  private static String render(int n) {
    String row =
        "(CAST(? AS VARCHAR(100)), CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(64)),"
            + " CAST(? AS TIMESTAMP(3)), CAST(? AS BIGINT))";
    String until = "DATEADD(MILLISECOND, s.ttl_ms, " + NOW + ")";
    return "SELECT "
        + COLUMNS
        + " FROM FINAL TABLE (MERGE INTO task_lock t USING (VALUES "
        + repeat(row, n)
        + ") s (lock_key, holder, token, last_fire, ttl_ms) ON t.lock_key = s.lock_key"
        + " WHEN MATCHED AND t.lease_until <= "
        + NOW
        + " AND (s.last_fire IS NULL OR t.last_fire IS NULL OR t.last_fire < s.last_fire)"
        + " THEN UPDATE SET holder = s.holder, token = s.token, fence = t.fence + 1,"
        + " last_fire = COALESCE(s.last_fire, t.last_fire), lease_until = "
        + until
        + " WHEN NOT MATCHED THEN INSERT (lock_key, holder, token, fence, last_fire,"
        + " lease_until) VALUES (s.lock_key, s.holder, s.token, 1, s.last_fire, "
        + until
        + "))";
  }

  /**
   * A single claim of an existing row: the guarded UPDATE alone, read through {@code FINAL TABLE}
   * (H2 runs it in a third of the MERGE's time); a name without a row yet takes the MERGE.
   */
  private static final String UPDATE_ONE =
      "SELECT "
          + COLUMNS
          + " FROM FINAL TABLE (UPDATE task_lock SET holder = ?, token = ?, fence = fence + 1,"
          + " last_fire = COALESCE(CAST(? AS TIMESTAMP(3)), last_fire), lease_until = DATEADD("
          + "MILLISECOND, CAST(? AS BIGINT), "
          + NOW
          + ") WHERE lock_key = ? AND lease_until <= "
          + NOW
          + " AND (CAST(? AS TIMESTAMP(3)) IS NULL OR last_fire IS NULL"
          + " OR last_fire < CAST(? AS TIMESTAMP(3))))";

  @Override
  List<ClaimRow> claim(Connection c, List<ClaimAttempt> batch) throws SQLException {
    if (batch.size() == 1) {
      List<ClaimRow> rows;
      try (PreparedStatement ps = c.prepareStatement(UPDATE_ONE)) {
        bindUpdateOne(ps, batch.get(0));
        rows = rows(ps);
      }
      if (rows.isEmpty()) {
        rows = read(c, batch);
      }
      if (!rows.isEmpty()) {
        return rows;
      }
    }
    List<ClaimRow> rows;
    try (PreparedStatement ps = c.prepareStatement(claimSql(batch.size()))) {
      bindAttempts(ps, batch, 1);
      rows = rows(ps);
    }
    if (rows.size() < batch.size()) {
      Set<String> won = new HashSet<>();
      rows.forEach(r -> won.add(r.name()));
      // H2 2.5 was seen to leave out of FINAL TABLE a row its MERGE wrote while racing another
      // MERGE; the token in the row read here still tells that the claim won
      rows.addAll(read(c, batch.stream().filter(a -> !won.contains(a.name())).toList()));
    }
    return rows;
  }
}
