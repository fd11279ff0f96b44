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

  /**
   * Whether replicas fire on this store's clock (every store but etcd, whose leases run on no clock
   * a client can read): then no firing may be missed around a restart of a replica whose clock runs
   * ahead.
   */
  default boolean firesOnItsClock() {
    return true;
  }

  /** Drops what the test created (database, schema, keys); never anything shared. */
  @Override
  void close();
}
