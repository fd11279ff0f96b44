package dev.leasehold.blackbox;

/** A store the daemons under test share, isolated for one test, and dropped after it. */
interface BlackBoxStore extends AutoCloseable {

  /** The lines of the daemon config's {@code store:} section. */
  String yaml();

  /** Deletes the lease of {@code name} behind the holder's back, as an operator or a bug might. */
  void stealLease(String name);

  /**
   * Deletes the whole lease record of {@code name} by hand, as an operator unlocking a job the
   * ShedLock way does (with it the fence and watermark, where they live in the record); by default
   * what {@link #stealLease} deletes.
   */
  default void deleteLeaseRecord(String name) {
    stealLease(name);
  }

  /** Drops what the test created (database, schema, keys); never anything shared. */
  @Override
  void close();
}
