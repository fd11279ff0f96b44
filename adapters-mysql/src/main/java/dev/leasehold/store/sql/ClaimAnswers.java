package dev.leasehold.store.sql;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns the rows a claim statement answered with into {@link ClaimResult}s, and checks that the
 * answer is one the statement can give (a server that only looks compatible must not make two
 * replicas both win):
 *
 * <ul>
 *   <li>every row names a claimed name, and at most one row per name carries the claim's token;
 *   <li>a won fence is at least 1 and above every fence this client won for the name before (a
 *       fence that does not rise means the row was lost or the server does not keep writes; a
 *       refusal's fence is not counted, since it may come from a moment before a racing win);
 *   <li>after a name's first claim (fence 1) the table holds exactly one row for it, on databases
 *       whose upsert would otherwise insert a duplicate into a table without its primary key.
 * </ul>
 *
 * A failed check fails that claim with a {@link LeaseStoreException} saying what the server did.
 */
final class ClaimAnswers {
  private final ClaimStatements sql;

  /** The highest fence won per name (names are job names: a bounded set). */
  private final Map<String, Long> fences = new ConcurrentHashMap<>();

  ClaimAnswers(ClaimStatements sql) {
    this.sql = sql;
  }

  /** The results for {@code attempts}, in their order. */
  List<ClaimResult> decide(Connection c, List<ClaimAttempt> attempts, List<ClaimRow> rows)
      throws SQLException {
    Map<String, ClaimAttempt> byName = new HashMap<>();
    attempts.forEach(a -> byName.put(a.name(), a));
    Map<String, ClaimRow> won = new HashMap<>();
    Map<String, ClaimRow> seen = new HashMap<>();
    for (ClaimRow row : rows) {
      ClaimAttempt a = byName.get(row.name());
      if (a == null) {
        throw wrong("returned a row for " + row.name() + ", which the statement did not claim");
      }
      boolean ours = a.token().equals(row.token());
      if ((ours ? won : seen).put(row.name(), row) != null) {
        throw wrong(
            "returned two rows for "
                + row.name()
                + ": task_lock has no primary key on lock_key (a mis-migrated schema?)");
      }
    }
    List<ClaimResult> results = new ArrayList<>(attempts.size());
    List<String> firstClaims = new ArrayList<>();
    for (ClaimAttempt a : attempts) {
      ClaimRow row = won.get(a.name());
      if (row == null) {
        results.add(refusal(a, seen.get(a.name())));
        continue;
      }
      try {
        results.add(ClaimResult.won(lease(a, row)));
        if (row.fence() == 1) {
          firstClaims.add(a.name());
        }
      } catch (LeaseStoreException e) {
        results.add(ClaimResult.failed(e));
      }
    }
    if (!firstClaims.isEmpty() && sql.checksUniqueness()) {
      Map<String, LeaseStoreException> duplicated = duplicates(c, firstClaims);
      for (int i = 0; i < attempts.size(); i++) {
        LeaseStoreException e = duplicated.get(attempts.get(i).name());
        if (e != null) {
          results.set(i, ClaimResult.failed(e));
        }
      }
    }
    return results;
  }

  private Lease lease(ClaimAttempt a, ClaimRow row) {
    long fence = row.fence();
    Long before = fences.get(a.name());
    if (fence < 1 || (before != null && fence <= before)) {
      throw wrong(
          "gave "
              + a.name()
              + " the fence "
              + fence
              + ", not above the "
              + (before == null ? "initial 0" : before + " this client won before")
              + ": a lease row was deleted, or the server does not keep its writes");
    }
    fences.merge(a.name(), fence, Math::max);
    return new Lease(
        a.name(), a.holder(), a.token(), fence, Duration.ofMillis(a.ttlMillis()), row.leaseUntil());
  }

  /**
   * A refused claim, classified by the row as the statement saw it (on PostgreSQL and H2 possibly a
   * moment older than the row the claim was decided on): a hint for waiting, never for running.
   */
  private ClaimResult refusal(ClaimAttempt a, ClaimRow row) {
    if (row == null) {
      return ClaimResult.held(null, null);
    }
    Instant watermark = row.lastFire();
    if (a.firing() != null && watermark != null && !watermark.isBefore(a.firing())) {
      return ClaimResult.alreadyRun(watermark);
    }
    return ClaimResult.held(row.holder(), watermark);
  }

  /** The names among {@code names} with other than one row, in one statement for all. */
  private static Map<String, LeaseStoreException> duplicates(Connection c, List<String> names)
      throws SQLException {
    String query =
        "SELECT lock_key, COUNT(*) FROM task_lock WHERE lock_key IN ("
            + ClaimStatements.repeat("?", names.size())
            + ") GROUP BY lock_key";
    Map<String, LeaseStoreException> duplicated = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      for (int i = 0; i < names.size(); i++) {
        ps.setString(i + 1, names.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (rs.getLong(2) != 1) {
            duplicated.put(
                rs.getString(1),
                wrong(
                    "holds "
                        + rs.getLong(2)
                        + " rows for "
                        + rs.getString(1)
                        + " after its first claim: task_lock has no primary key on lock_key"
                        + " (a mis-migrated schema, or a server that does not enforce it)"));
          }
        }
      }
    }
    return duplicated;
  }

  private static LeaseStoreException wrong(String what) {
    return new LeaseStoreException(
        "SQL store: the database " + what + "; claim refused, Leasehold cannot run safely on it");
  }
}
