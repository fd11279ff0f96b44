package dev.leasehold.core.lease;

import java.time.Duration;
import java.util.Optional;

/**
 * A counted lease on any {@link LeaseStore}: at most {@code max} holders at once, cluster-wide, as
 * {@code max} plain leases named {@link #slotName} {@code _leasehold.group.<group>.<i>}. Taking one
 * is {@link LeaseStore#acquire} of each slot in turn until one is granted; the holder renews and
 * releases the slot's lease like any other. Built on the port alone, so every store that passes the
 * contract kit supports it; the mutual exclusion of each slot is the store's, and the count
 * follows: {@code max} slots, each held by at most one live lease.
 */
public final class CountedLease {

  /** The prefix of every slot's lease name. */
  public static final String PREFIX = "_leasehold.group.";

  private CountedLease() {}

  /** The lease name of slot {@code i} of {@code group}. */
  public static String slotName(String group, int i) {
    return PREFIX + group + "." + i;
  }

  /**
   * Tries every slot once, in order, and returns the first one granted.
   *
   * @return a slot's lease, or empty when all {@code max} were held
   * @throws LeaseStoreException when the store could not be asked about a slot and no later slot
   *     was granted
   */
  public static Optional<Lease> tryTake(
      LeaseStore store, String group, int max, String holder, Duration ttl) {
    LeaseStoreException error = null;
    for (int i = 0; i < max; i++) {
      try {
        Optional<Lease> slot = store.acquire(slotName(group, i), holder, ttl);
        if (slot.isPresent()) {
          return slot;
        }
      } catch (LeaseStoreException e) {
        error = e;
      }
    }
    if (error != null) {
      throw error;
    }
    return Optional.empty();
  }
}
