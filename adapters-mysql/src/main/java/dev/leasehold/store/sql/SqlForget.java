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
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.conf.ParamType;
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

  private final Rendered lockForgettable;
  private final Rendered deleteForgettable;
  private final Rendered raiseFloor;
  private final Rendered makeFloor;

  /** The statements, rendered for {@code db}'s dialect at first use ({@link Rendered}). */
  SqlForget(DSLContext db) {
    Param<String> key = DSL.param(LOCK_KEY);
    Condition forgettable = LOCK_KEY.eq(key).and(LEASE_UNTIL.le(NOW)).and(PAUSED_AT.isNull());
    this.lockForgettable =
        Rendered.by(
            () ->
                db.select(FENCE)
                    .from(LOCK)
                    .where(forgettable)
                    .forUpdate()
                    .getSQL(ParamType.INDEXED));
    this.deleteForgettable =
        Rendered.by(() -> db.deleteFrom(LOCK).where(forgettable).getSQL(ParamType.INDEXED));
    this.raiseFloor =
        Rendered.by(
            () ->
                db.update(LOCK)
                    .set(FENCE, DSL.greatest(FENCE, DSL.param(FENCE)))
                    .where(LOCK_KEY.eq(DSL.inline(FLOOR)))
                    .getSQL(ParamType.INDEXED));
    this.makeFloor =
        Rendered.by(
            () ->
                db.insertInto(LOCK, LOCK_KEY, FENCE, LEASE_UNTIL)
                    .select(DSL.select(DSL.inline(FLOOR), DSL.param(FENCE), NOW))
                    .getSQL(ParamType.INDEXED));
  }

  /** In one transaction on one connection of {@code dataSource}; see the class comment. */
  boolean forget(DataSource dataSource, String name) throws SQLException {
    if (FLOOR.equals(name)) {
      return false;
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        boolean forgotten = forget(c, name);
        c.commit();
        return forgotten;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  private boolean forget(Connection c, String name) throws SQLException {
    long fence;
    try (PreparedStatement ps = c.prepareStatement(lockForgettable.get())) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        fence = rs.getLong(1);
      }
    }
    try (PreparedStatement ps = c.prepareStatement(deleteForgettable.get())) {
      ps.setString(1, name);
      if (ps.executeUpdate() == 0) {
        return false;
      }
    }
    if (!StoreSelfCheck.isScratch(name)) {
      raiseFloor(c, fence);
    }
    // the delete's trigger kept the row's fence and watermark: a forgotten name starts afresh,
    // its fence above the floor
    SqlHighWater.forget(c, name);
    return true;
  }

  /**
   * Raises the floor row to {@code fence}, creating it at the first forget. Two forgets creating it
   * at once: the primary key refuses one, whose transaction rolls back (its row stays, to be
   * forgotten at a later prune).
   */
  private void raiseFloor(Connection c, long fence) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(raiseFloor.get())) {
      ps.setLong(1, fence);
      if (ps.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement ps = c.prepareStatement(makeFloor.get())) {
      ps.setLong(1, fence);
      ps.executeUpdate();
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
