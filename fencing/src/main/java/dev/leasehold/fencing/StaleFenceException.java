package dev.leasehold.fencing;

import java.sql.SQLException;

/**
 * A write refused because a higher fence was already seen for its resource: a newer run of the job
 * has written (or is writing) there, so this writer's lease is stale. Roll the transaction back. An
 * {@link SQLException} so that code handling database failures handles it too.
 */
public final class StaleFenceException extends SQLException {
  private static final long serialVersionUID = 1L;

  /** SQLState of a refused stale write (class 'LH': Leasehold's own). */
  public static final String SQL_STATE = "LH001";

  private final String resource;
  private final long fence;

  public StaleFenceException(String resource, long fence, String seen) {
    super(
        "stale fence "
            + fence
            + " for "
            + resource
            + ": "
            + (seen == null ? "a higher fence" : seen)
            + " was already seen",
        SQL_STATE);
    this.resource = resource;
    this.fence = fence;
  }

  /** The resource the write was for. */
  public String resource() {
    return resource;
  }

  /** The refused fence. */
  public long fence() {
    return fence;
  }
}
