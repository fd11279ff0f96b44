package dev.leasehold.storekit.lease;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * What every group of the {@link LeaseStoreContract} shares: the clients it opens (and closes after
 * each test), fresh names, firings and TTLs, and polling for states that come with time.
 *
 * <p>Expiry is real time on the store's clock: tests that wait for a lease to expire use short TTLs
 * and poll for the expected state with a generous limit; nothing asserts a duration.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LeaseStoreCases {
  /** Longer than any test takes: a lease with this TTL never expires during a test. */
  protected static final Duration LONG = Duration.ofMinutes(5);

  /** Short enough to wait for; long enough that a claim and its check fit in it. */
  protected static final Duration SHORT = Duration.ofMillis(400);

  /** How long a test waits for a {@link #SHORT} lease to expire before it calls that a failure. */
  protected static final Duration EXPIRY_LIMIT = Duration.ofSeconds(15);

  protected static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  protected static final Instant F2 = F1.plusSeconds(60);
  protected static final Instant F3 = F2.plusSeconds(60);

  private final List<StoreBackend> opened = new ArrayList<>();

  /** The first client of each test, with the parts its store has. */
  protected StoreBackend backend;

  /** The leases of the first client. */
  protected LeaseStore store;

  /** A new, independent client on the same database. */
  protected abstract StoreBackend createBackend();

  /** A new client, closed by the kit after the test. */
  protected final StoreBackend newBackend() {
    StoreBackend b = createBackend();
    opened.add(b);
    return b;
  }

  /** The leases of a new client, closed by the kit after the test. */
  protected final LeaseStore newStore() {
    return newBackend().leaseStore();
  }

  /** The pauses of the first client; the test is skipped on a store that keeps none. */
  protected final Pauses pauses() {
    return part(backend.pauses(), "this store does not keep pauses");
  }

  /** The pauses of a new client. */
  protected final Pauses newPauses() {
    return part(newBackend().pauses(), "this store does not keep pauses");
  }

  /** The node records of the first client; the test is skipped on a store that keeps none. */
  protected final NodeRecords nodeRecords() {
    return part(backend.nodeRecords(), "this store keeps no node records");
  }

  /** The node records of a new client. */
  protected final NodeRecords newNodeRecords() {
    return part(newBackend().nodeRecords(), "this store keeps no node records");
  }

  /** The forgetting of the first client; the test is skipped on a store that cannot forget. */
  protected final Forgetting forgetting() {
    return part(backend.forgetting(), "this store cannot forget a lease record");
  }

  /** The forgetting of a new client. */
  protected final Forgetting newForgetting() {
    return part(newBackend().forgetting(), "this store cannot forget a lease record");
  }

  /** The journal of the first client; the test is skipped on a store that keeps none. */
  protected final Journal journal() {
    return part(backend.journal(), "this store keeps no journal");
  }

  /** The journal of a new client. */
  protected final Journal newJournal() {
    return part(newBackend().journal(), "this store keeps no journal");
  }

  private static <T> T part(Optional<T> part, String missing) {
    assumeTrue(part.isPresent(), missing);
    return part.get();
  }

  @BeforeEach
  final void openStore() {
    backend = newBackend();
    store = backend.leaseStore();
  }

  @AfterEach
  final void closeStores() {
    for (StoreBackend b : opened) {
      b.close();
    }
    opened.clear();
  }

  /** A name no other test (or earlier run against the same database) has used. */
  protected static String freshName() {
    return "contract-" + UUID.randomUUID().toString().substring(0, 13);
  }

  /**
   * Polls {@code condition} until it holds (a store error counts as not yet); fails after {@code
   * limit}.
   */
  protected static void eventually(Duration limit, BooleanSupplier condition) {
    long end = System.nanoTime() + limit.toNanos();
    LeaseStoreException lastError = null;
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (LeaseStoreException e) {
        // a store that cannot tell yet (a Redlock node answering late): ask again
        lastError = e;
      }
      if (System.nanoTime() > end) {
        throw new AssertionError("condition did not hold within " + limit, lastError);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }
}
