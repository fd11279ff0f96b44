package dev.leasehold.app.testing;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Duration;

/**
 * A holder with a renewal loop of its own, as three were before lease.hold: the architecture rules
 * must catch it (ArchitectureRulesCanFailTest).
 */
public final class RenewsItsOwnLease {
  private RenewsItsOwnLease() {}

  public static boolean renew(LeaseStore store, Lease lease) {
    return store.renew(lease, Duration.ofSeconds(30));
  }
}
