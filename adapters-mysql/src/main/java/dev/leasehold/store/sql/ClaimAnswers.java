package dev.leasehold.store.sql;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the rows a claim statement answered with into {@link ClaimResult}s, and checks that the
 * answer is one the statement can give (a server that only looks compatible must not make two
 * replicas both win):
 *
 * <ul>
 *   <li>every row names a claimed name, and at most one row per name carries the claim's token;
 *   <li>a won fence is at least 1 and above every fence this client won for the name before, every
 *       fence the history recorded for it and every fence of its deleted rows ({@link
 *       SqlHighWater}); a fence that does not rise means the lease row was deleted (or the server
 *       lost writes), and the claim, which holds the row, raises its fence above the highest known
 *       and its watermark to the deleted row's before the lease is handed out, or, when that
 *       watermark has the firing already, frees the row and answers "already run" (a refusal's
 *       fence is not counted, since it may come from a moment before a racing win);
 *   <li>after a name's first claim (fence 1) the table holds exactly one row for it, on databases
 *       whose upsert would otherwise insert a duplicate into a table without its primary key.
 * </ul>
 *
 * A failed check fails that claim with a {@link LeaseStoreException} saying what the server did.
 */
final class ClaimAnswers {
  private static final Logger log = LoggerFactory.getLogger(ClaimAnswers.class);
  private final SqlDialect sql;

  /** The highest fence won per name (names are job names: a bounded set). */
  private final Map<String, Long> fences = new ConcurrentHashMap<>();

  ClaimAnswers(SqlDialect sql) {
    this.sql = sql;
  }

  /** The results for {@code attempts}, in their order. */
  List<ClaimResult> decide(Connection c, List<ClaimAttempt> attempts, List<ClaimRow> rows)
      throws SQLException {
    Map<String, ClaimAttempt> byName = new HashMap<>();
    attempts.forEach(a -> byName.put(a.name(), a));
    Map<String, ClaimRow> won = new HashMap<>();
    Map<String, ClaimRow> seen = new HashMap<>();
    Map<String, ClaimRow> recorded = new HashMap<>();
    for (ClaimRow row : rows) {
      ClaimAttempt a = byName.get(row.name());
      if (a == null) {
        throw wrong("returned a row for " + row.name() + ", which the statement did not claim");
      }
      boolean ours = a.token().equals(row.token());
      boolean paused = !ours && a.firing() != null && a.token().equals(row.pauseClaim());
      if ((ours ? won : paused ? recorded : seen).put(row.name(), row) != null) {
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
      if (row == null && recorded.containsKey(a.name())) {
        results.add(ClaimResult.paused(a.firing()));
        continue;
      }
      if (row == null) {
        results.add(refusal(a, seen.get(a.name())));
        continue;
      }
      try {
        results.add(claimed(c, a, row));
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

  /**
   * The result of a claim that won {@code row}: won, or, when the row is a new one standing in for
   * a deleted row whose watermark has the firing already, refused as already run.
   */
  private ClaimResult claimed(Connection c, ClaimAttempt a, ClaimRow row) throws SQLException {
    long fence = row.fence();
    if (fence < 1) {
      throw wrong("gave " + a.name() + " the fence " + fence + ", not above the initial 0");
    }
    Long before = fences.get(a.name());
    if (fence == 1 || (before != null && fence <= before)) {
      // a first claim, or a row that went back: is a higher fence or a watermark known from the
      // deleted rows, the history, or the floor of forgotten rows?
      SqlHighWater.Marks marks = SqlHighWater.read(c, a.name());
      long known =
          Math.max(Math.max(before == null ? 0 : before, historyFence(c, a.name())), marks.fence());
      long ceiling = Math.max(known, marks.floor());
      Instant spent = marks.lastFire();
      if (a.firing() != null && spent != null && !spent.isBefore(a.firing())) {
        return refuseSpent(c, a, fence, Math.max(ceiling, fence), spent);
      }
      if (fence <= ceiling || spent != null) {
        // above the floor alone: a new name, or one forgotten after its job was removed (no
        // warning); above a fence of this name's own: its row was deleted or reset
        fence =
            restore(
                c, a, fence, ceiling, spent, !marks.deleted() && fence > known, fence > ceiling);
      }
    }
    fences.merge(a.name(), fence, Math::max);
    return ClaimResult.won(
        new Lease(
            a.name(),
            a.holder(),
            a.token(),
            fence,
            Duration.ofMillis(a.ttlMillis()),
            row.leaseUntil()));
  }

  /**
   * The lease row of {@code a} was deleted (an operator unlocking a job the ShedLock way) or reset:
   * the claim won it with {@code given}, not above the {@code known} fence, or without the
   * watermark {@code spent} of the deleted row. Fences must never go back (G6), and a firing
   * already run must not run again (G1): the row, which this claim holds, is raised to {@code known
   * + 1} and to the deleted row's watermark before the lease is handed out. Returns the new fence.
   */
  private long restore(
      Connection c,
      ClaimAttempt a,
      long given,
      long known,
      Instant spent,
      boolean quietly,
      boolean fenceAbove)
      throws SQLException {
    long restored = fenceAbove ? given : known + 1;
    update(c, a, given, known, restored, spent, false);
    if (quietly) {
      log.debug(
          "the first claim of {} raised its fence above forgotten rows to {}", a.name(), restored);
      return restored;
    }
    log.warn(
        "the lease row of {} was deleted or reset (the database gave fence {}, but {} was given"
            + " before): fence raised to {}{}. To end a lease early, expire it instead of deleting"
            + " its row (docs/operations.md)",
        a.name(),
        given,
        known,
        restored,
        spent == null ? "" : ", watermark restored to " + spent);
    return restored;
  }

  /**
   * As {@link #restore}, for a firing the deleted row's watermark {@code spent} has already: the
   * row is raised to {@code kept} and the watermark and freed, and the claim refused as already
   * run.
   */
  private ClaimResult refuseSpent(
      Connection c, ClaimAttempt a, long given, long kept, Instant spent) throws SQLException {
    update(c, a, given, kept, kept, spent, true);
    log.warn(
        "the lease row of {} was deleted or reset (the database gave fence {}, but {} was given"
            + " before): fence raised to {}, watermark restored to {}; firing {} already run, not"
            + " run again. To end a lease early, expire it instead of deleting its row"
            + " (docs/operations.md)",
        a.name(),
        given,
        kept,
        kept,
        spent,
        a.firing());
    return ClaimResult.alreadyRun(spent);
  }

  /**
   * Sets the fence of the row this claim holds (by its token and the fence it was given) to {@code
   * fence}, raises its watermark to {@code spent} (when known), and with {@code free} ends its
   * lease: one statement.
   */
  private void update(
      Connection c, ClaimAttempt a, long given, long known, long fence, Instant spent, boolean free)
      throws SQLException {
    String time = "CAST(? AS " + sql.datetimeType() + ")";
    String statement =
        "UPDATE task_lock SET fence = ?, last_fire = CASE WHEN last_fire IS NULL OR last_fire < "
            + time
            + " THEN "
            + time
            + " ELSE last_fire END"
            + (free ? ", holder = NULL, token = NULL, lease_until = " + sql.now : "")
            + " WHERE lock_key = ? AND token = ? AND fence = ?";
    Object watermark = spent == null ? null : LocalDateTime.ofInstant(spent, ZoneOffset.UTC);
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setLong(1, fence);
      ps.setObject(2, watermark, Types.TIMESTAMP);
      ps.setObject(3, watermark, Types.TIMESTAMP);
      ps.setString(4, a.name());
      ps.setString(5, a.token());
      ps.setLong(6, given);
      if (ps.executeUpdate() != 1) {
        throw wrong(
            "gave "
                + a.name()
                + " the fence "
                + given
                + ", not above the "
                + known
                + " already given, and the row changed before it could be raised");
      }
    }
  }

  /**
   * The highest fence the history recorded for job {@code name}; 0 when none, or when this database
   * keeps no history (a schema with {@code task_lock} alone): then this client's own fences are all
   * that is known.
   */
  private static long historyFence(Connection c, String name) {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT MAX(fence) FROM task_execution WHERE job = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      log.debug("no fence from the history of {}: {}", name, e.getMessage());
      return 0;
    }
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
            + ClaimSql.repeat("?", names.size())
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
