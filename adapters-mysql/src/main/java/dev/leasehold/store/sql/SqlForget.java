package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.Tables.FENCE;
import static dev.leasehold.store.sql.Tables.LEASE_UNTIL;
import static dev.leasehold.store.sql.Tables.LOCK;
import static dev.leasehold.store.sql.Tables.LOCK_KEY;
import static dev.leasehold.store.sql.Tables.NOW;
import static dev.leasehold.store.sql.Tables.PAUSED_AT;

import dev.leasehold.core.store.StoreSelfCheck;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record1;
import org.jooq.impl.DSL;

/**
 * {@code forget} on {@code task_lock}: in one transaction, the row of the name is locked ({@code
 * SELECT fence ... FOR UPDATE}) and deleted only while {@code lease_until <= now} on the database's
 * clock and it is not paused; its fence then raises the floor row {@value #FLOOR}, the highest
 * fence of every forgotten row. A later first claim of any name restores its fence above the floor
 * (as above the history's {@code MAX(fence)}, {@link ClaimAnswers}), so a job that returns after
 * its row was forgotten still gets a fence above every fence it was given, even once the retention
 * has pruned its history. Scratch names of the self-check do not raise the floor (nothing is fenced
 * by them) and are not restored above it.
 */
final class SqlForget {

  /** The floor row's key: {@code _leasehold.} names are never a job's. */
  static final String FLOOR = "_leasehold.forgotten-fences";

  private SqlForget() {}

  private static Condition forgettable(String name) {
    return LOCK_KEY.eq(name).and(LEASE_UNTIL.le(NOW)).and(PAUSED_AT.isNull());
  }

  static boolean forget(DSLContext db, String name) {
    if (FLOOR.equals(name)) {
      return false;
    }
    return db.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Record1<Long> row =
              tx.select(FENCE).from(LOCK).where(forgettable(name)).forUpdate().fetchOne();
          if (row == null) {
            return false;
          }
          if (tx.deleteFrom(LOCK).where(forgettable(name)).execute() == 0) {
            return false;
          }
          if (!StoreSelfCheck.isScratch(name)) {
            raiseFloor(tx, row.value1());
          }
          // the delete's trigger kept the row's fence and watermark: a forgotten name starts
          // afresh, its fence above the floor
          SqlHighWater.forget(tx, name);
          return true;
        });
  }

  /**
   * Raises the floor row to {@code fence}, creating it at the first forget. Two forgets creating it
   * at once: the primary key refuses one, whose transaction rolls back (its row stays, to be
   * forgotten at a later prune).
   */
  private static void raiseFloor(DSLContext tx, long fence) {
    int raised =
        tx.update(LOCK)
            .set(FENCE, DSL.greatest(FENCE, DSL.val(fence)))
            .where(LOCK_KEY.eq(FLOOR))
            .execute();
    if (raised == 0) {
      tx.insertInto(LOCK, LOCK_KEY, FENCE, LEASE_UNTIL)
          .select(DSL.select(DSL.val(FLOOR), DSL.val(fence), NOW))
          .execute();
    }
  }

  /** The floor for a first claim of {@code name}: 0 for scratch names, or when there is none. */
  static long floor(Connection c, String name) throws SQLException {
    if (StoreSelfCheck.isScratch(name)) {
      return 0;
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT fence FROM task_lock WHERE lock_key = ?")) {
      ps.setString(1, FLOOR);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }
}
