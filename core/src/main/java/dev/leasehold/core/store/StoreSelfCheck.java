package dev.leasehold.core.store;

import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * The conformance self-check: proves on the real server, through the port alone, the behaviours
 * every guarantee rests on, before anything is scheduled. A server that speaks a store's protocol
 * without being that store (a "compatible" server, a proxy) can get one of them subtly wrong; then
 * the lock must refuse to start, not silently stop locking.
 *
 * <p>On two scratch names ({@value #SCRATCH_PREFIX}{@code <node>.hold} and {@code .expiry}) and two
 * independent clients it checks, in about the short TTL plus a few dozen round trips:
 *
 * <ol>
 *   <li>a claim of a free lease wins, and the fence moved past the stored one (G1, G6);
 *   <li>the store keeps what it was told: the name, the holder, the firing and the fence (G1);
 *   <li>the same firing is refused the second time, and a second client is refused while the lease
 *       lives, for a claim and for an acquire (G1);
 *   <li>a wrong token does not release the lease; the right one does (G7);
 *   <li>a released firing is still refused: the watermark holds (G1, G2);
 *   <li>a lease with a {@link #SHORT_TTL} is not taken before the TTL, and is claimable after it on
 *       the store's clock (G3), with a larger fence (G6).
 * </ol>
 *
 * <p>The port cannot delete, so the scratch names stay in the store, released (one small entry per
 * node). A failure is an {@link IncompatibleStoreException} whose message is one line naming the
 * store, its redacted address and the missing behaviour; a store error during the check propagates
 * as it is (unreachable, unsupported), so it is reported as what it is.
 */
public final class StoreSelfCheck {
  /** Every scratch name starts with this; no job of a configuration needs it. */
  public static final String SCRATCH_PREFIX = "_leasehold.self-check.";

  /** The TTL whose expiry the check waits for. */
  public static final Duration SHORT_TTL = Duration.ofMillis(300);

  private static final Duration HOLD_TTL = Duration.ofSeconds(10);
  private static final Duration EXPIRY_LIMIT = SHORT_TTL.plusSeconds(3);
  private static final long POLL_MILLIS = 20;

  private final String where;
  private final String base;
  private final String holder;
  private final LongSupplier nanoTime;

  /**
   * @param settings the store's settings (for the failure line: type and redacted address)
   * @param node this node's id: the scratch names and holders carry it
   */
  public StoreSelfCheck(StoreSettings settings, String node) {
    this(settings, node, System::nanoTime);
  }

  StoreSelfCheck(StoreSettings settings, String node, LongSupplier nanoTime) {
    this.where = describe(settings);
    this.base = SCRATCH_PREFIX + tag(node);
    this.holder = "self-check-" + tag(node);
    this.nanoTime = nanoTime;
  }

  /** {@code store mongo at mongodb://h:27017}, without secrets. */
  public static String describe(StoreSettings settings) {
    String address =
        settings.url() != null
            ? Redaction.redactUrl(settings.url())
            : String.join(",", settings.urls().stream().map(Redaction::redactUrl).toList());
    return "store " + settings.type() + " at " + address;
  }

  /** True for the names this check uses (so that reports can leave them out). */
  public static boolean isScratch(String name) {
    return name != null && name.startsWith(SCRATCH_PREFIX);
  }

  /**
   * Runs the check with two independent clients of the same store.
   *
   * @throws IncompatibleStoreException when the store does not behave as Leasehold needs
   * @throws dev.leasehold.core.lease.LeaseStoreException when the store cannot be asked
   */
  public void run(LeaseStore first, LeaseStore second) {
    List<Held> held = new ArrayList<>();
    try {
      String hold = scratch(first, base + ".hold");
      String expiry = scratch(first, base + ".expiry");
      Instant firing = nextFiring(first, hold, expiry);
      checkClaims(first, second, hold, firing, held);
      checkExpiry(first, second, expiry, firing, held);
    } catch (IncompatibleStoreException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(where)) {
        throw e;
      }
      throw new IncompatibleStoreException(
          where + ": " + e.getMessage() + "; Leasehold cannot run safely on it", e);
    } finally {
      for (Held h : held) {
        try {
          h.client.release(h.lease);
        } catch (RuntimeException e) {
          // cleaning up as far as the store lets us; its lease ends with its TTL anyway
        }
      }
    }
  }

  private void checkClaims(
      LeaseStore first, LeaseStore second, String name, Instant firing, List<Held> held) {
    long storedFence = first.inspect(name).map(LeaseState::fence).orElse(0L);
    Lease lease =
        first
            .claim(name, firing, holder, HOLD_TTL)
            .orElseThrow(() -> fail("the server refused the first claim of a free lease"));
    held.add(new Held(first, lease));
    if (!name.equals(lease.name())) {
      throw fail("the server answered a claim of " + name + " with the lease " + lease.name());
    }
    if (lease.fence() <= storedFence) {
      throw fail(
          "a claim did not raise the fence (stored "
              + storedFence
              + ", got "
              + lease.fence()
              + ")");
    }
    LeaseState state =
        second
            .inspect(name)
            .orElseThrow(() -> fail("a claimed lease cannot be found under its name"));
    if (!state.held()
        || !holder.equals(state.holder())
        || !firing.equals(state.lastFire())
        || state.fence() != lease.fence()) {
      throw fail("the server did not keep the claimed lease as written (read back " + state + ")");
    }
    if (first.claim(name, firing, holder + "-again", HOLD_TTL).isPresent()) {
      throw fail("the server accepted a second claim of a held lease");
    }
    if (second.claim(name, firing.plusMillis(1), holder + "-other", HOLD_TTL).isPresent()
        || second.acquire(name, holder + "-other", HOLD_TTL).isPresent()) {
      throw fail("the server let a second client take a live lease");
    }
    Lease forged =
        new Lease(name, holder, LeaseArguments.newToken(), lease.fence(), HOLD_TTL, null);
    // release only: a refused renewal is logged as a lost lease by every store, a refused release
    // at debug level, and a start-up must not log a lost lease that never was
    if (second.release(forged)) {
      throw fail("the server released a lease for a wrong token");
    }
    if (!first.release(lease)) {
      throw fail("the server refused to release a lease by its own token");
    }
    held.clear();
    if (second.claim(name, firing, holder + "-late", HOLD_TTL).isPresent()) {
      throw fail(
          "the server accepted a claim of a firing already run (the watermark did not hold)");
    }
  }

  private void checkExpiry(
      LeaseStore first, LeaseStore second, String name, Instant firing, List<Held> held) {
    long start = nanoTime.getAsLong();
    Lease lease =
        first
            .claim(name, firing, holder, SHORT_TTL)
            .orElseThrow(() -> fail("the server refused the first claim of a free lease"));
    held.add(new Held(first, lease));
    Optional<Lease> early = second.acquire(name, holder + "-other", SHORT_TTL);
    // the store started the TTL after `start`, and decided this acquire before it returned: an
    // acquire granted and answered within the TTL of `start` took a live lease
    long answered = nanoTime.getAsLong();
    if (early.isPresent()) {
      held.add(new Held(second, early.get()));
      if (answered - start < SHORT_TTL.toNanos()) {
        throw fail("the server let a second client take a live lease");
      }
      return; // this machine was too slow to tell; the claim checks above still hold
    }
    Instant next = firing.plusMillis(1);
    long deadline = start + EXPIRY_LIMIT.toNanos();
    while (true) {
      Optional<Lease> taken = second.claim(name, next, holder + "-other", SHORT_TTL);
      if (taken.isPresent()) {
        held.add(new Held(second, taken.get()));
        if (taken.get().fence() <= lease.fence()) {
          throw fail(
              "the fence did not increase after expiry ("
                  + lease.fence()
                  + " then "
                  + taken.get().fence()
                  + ")");
        }
        return;
      }
      if (nanoTime.getAsLong() - deadline > 0) {
        throw fail(
            "a lease with a "
                + SHORT_TTL.toMillis()
                + " ms TTL was still held after "
                + EXPIRY_LIMIT.toMillis()
                + " ms: expiry does not follow the TTL on the server's clock");
      }
      pause();
    }
  }

  /** The scratch name, or a one-off variant when another process (same node id) holds it now. */
  private static String scratch(LeaseStore store, String name) {
    boolean busy = store.inspect(name).map(LeaseState::held).orElse(false);
    return busy ? name + "." + UUID.randomUUID().toString().substring(0, 8) : name;
  }

  /** A firing past both watermarks and not before now, at millisecond precision. */
  private static Instant nextFiring(LeaseStore store, String... names) {
    Instant firing = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    for (String name : names) {
      Instant last = store.inspect(name).map(LeaseState::lastFire).orElse(null);
      if (last != null && !last.isBefore(firing)) {
        firing = last.plusMillis(1);
      }
    }
    return firing;
  }

  /** The node id as lease-name characters, short enough for any store's key. */
  private static String tag(String node) {
    String clean = node == null ? "node" : node.replaceAll("[^A-Za-z0-9._-]", "_");
    return clean.length() > 40 ? clean.substring(0, 40) : clean;
  }

  private IncompatibleStoreException fail(String behaviour) {
    return new IncompatibleStoreException(
        where + ": " + behaviour + "; Leasehold cannot run safely on it");
  }

  private static void pause() {
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the store self-check", e);
    }
  }

  private record Held(LeaseStore client, Lease lease) {}
}
