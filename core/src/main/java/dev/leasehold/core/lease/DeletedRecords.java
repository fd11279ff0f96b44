package dev.leasehold.core.lease;

/**
 * What a store logs when it finds that the lease record of a name was deleted by hand (an operator
 * unlocking a job the ShedLock way) and restored its fence, and its watermark where it could, from
 * what it keeps apart from the record (a high-water mark, the history, the fences this client won).
 * One wording for every store, so that an operator can search the log for it.
 */
public final class DeletedRecords {
  private DeletedRecords() {}

  /**
   * The warning for {@code name}: the record {@code what} (e.g. "the meta hash lh:{JOB}:meta") was
   * missing or had gone back, and the claim took {@code fence}, above the {@code known} fence.
   */
  public static String restored(String name, String what, long known, long fence) {
    return message(name, what, known + " (now " + fence + ")");
  }

  /**
   * The same warning from the client that put the record back when another client's claim then took
   * it: the fence that claim got is not known here.
   */
  public static String restored(String name, String what, long known) {
    return message(name, what, known + " (taken by another claim)");
  }

  private static String message(String name, String what, String fence) {
    return "the lease record of "
        + name
        + " was deleted by hand ("
        + what
        + "); fence restored above "
        + fence
        + ", and firings already run stay spent. To release a stuck lease, use 'leasehold reset'"
        + " (docs/operations.md, Releasing a stuck lease)";
  }
}
