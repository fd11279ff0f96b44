package dev.leasehold.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.h2.api.Trigger;

/**
 * H2's trigger {@code task_lock_keep_high_water} (migration V6), run before each row of {@code
 * task_lock} is deleted: raises the name's row in {@code task_lock_high_water} to the fence and
 * watermark of the row about to go, in the deleting statement's transaction. H2 runs triggers as
 * Java classes of the process that has the database open: a Leasehold process (other processes of
 * the machine share the file through it). The values are copied in SQL, from the row itself, so no
 * time passes through a Java type on the way.
 */
public final class H2HighWaterTrigger implements Trigger {
  private static final String RAISE =
      "MERGE INTO task_lock_high_water h USING (SELECT lock_key, fence, last_fire FROM task_lock"
          + " WHERE lock_key = ?) d ON h.lock_key = d.lock_key WHEN MATCHED THEN UPDATE SET"
          + " fence = GREATEST(h.fence, d.fence), last_fire = GREATEST(h.last_fire, d.last_fire)"
          + " WHEN NOT MATCHED THEN INSERT (lock_key, fence, last_fire)"
          + " VALUES (d.lock_key, d.fence, d.last_fire)";

  /** H2 creates the trigger through this constructor. */
  public H2HighWaterTrigger() {}

  @Override
  public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(RAISE)) {
      ps.setObject(1, oldRow[0]); // lock_key, the first column since V1
      ps.executeUpdate();
    }
  }
}
