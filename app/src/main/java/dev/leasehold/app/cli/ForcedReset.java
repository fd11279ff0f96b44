package dev.leasehold.app.cli;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code reset --force} on a live lease: the store refuses the holder's renewals (a pause with
 * stop-running, on stores that keep pauses; the holder's daemon then stops the run as {@code
 * lease-lost} and releases it), and the reset takes the lease as soon as it ends, waiting at most
 * twice the job's TTL. The pause it set is lifted afterwards (firings that fell meanwhile stay
 * recorded as paused); a pause that was there before is put back as it was.
 */
final class ForcedReset {
  private ForcedReset() {}

  static Lease takeOver(StoreBackend backend, String job, String by, Duration ttl) {
    LeaseStore store = backend.leaseStore();
    Pauses pauses = backend.pauses().orElse(null);
    Pause before = null;
    if (pauses != null) {
      before = store.inspect(job).map(LeaseState::pause).orElse(null);
      pauses.pause(job, by, "leasehold reset --force", true);
    }
    try {
      long deadline = System.nanoTime() + ttl.multipliedBy(2).plusSeconds(5).toNanos();
      while (true) {
        Optional<Lease> lease = store.acquire(job, by, ResetCommand.HOLD);
        if (lease.isPresent()) {
          return lease.get();
        }
        if (System.nanoTime() > deadline) {
          throw new LeaseStoreException(
              "reset --force of "
                  + job
                  + ": the lease did not end within twice its TTL ("
                  + ttl.multipliedBy(2)
                  + "); nothing was changed");
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LeaseStoreException("reset --force of " + job + " was interrupted");
        }
      }
    } finally {
      if (pauses != null && before == null) {
        pauses.resume(job, false);
      } else if (pauses != null) {
        pauses.pause(job, before.by(), before.reason(), before.stopRunning());
      }
    }
  }
}
