package dev.leasehold.core.store;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.Pauses;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The behaviours {@link StoreSelfCheck} proves on one slot's two scratch names, with two
 * independent clients: claims, fences, tokens and the watermark; a pause, where the store keeps
 * them; expiry on the store's clock. One per run: it remembers that a record was found forgotten by
 * another check, which may happen once per run before the slot is given up.
 */
final class SelfCheckSteps {
  private static final Duration HOLD_TTL = Duration.ofSeconds(10);
  private static final Duration EXPIRY_GRACE = Duration.ofSeconds(3);
  private static final long POLL_MILLIS = 20;
  private static final int REFUSALS = 4;

  private final LeaseStore first;
  private final LeaseStore second;
  private final Optional<Pauses> pauses;
  private final boolean forgets;
  private final String holder;
  private final Duration shortTtl;
  private final String where;
  private final LongSupplier nanoTime;
  private final Clock clock;
  private boolean forgottenOnce;

  SelfCheckSteps(
      StoreBackend first,
      StoreBackend second,
      String holder,
      Duration shortTtl,
      String where,
      LongSupplier nanoTime,
      Clock clock) {
    this.first = first.leaseStore();
    this.second = second.leaseStore();
    this.pauses = first.pauses();
    this.forgets = first.forgetting().isPresent();
    this.holder = holder;
    this.shortTtl = shortTtl;
    this.where = where;
    this.nanoTime = nanoTime;
    this.clock = clock;
  }

  /** Whether another check holds the scratch name now. */
  boolean busy(String name) {
    return first.inspect(name).map(LeaseState::held).orElse(false);
  }

  void checkClaims(String name, Instant firing, List<Held> held) {
    long storedFence = first.inspect(name).map(LeaseState::fence).orElse(0L);
    Lease lease = claimFree(first, name, firing, HOLD_TTL);
    held.add(new Held(first, lease));
    if (!name.equals(lease.name())) {
      throw fail("the server answered a claim of " + name + " with the lease " + lease.name());
    }
    if (lease.fence() <= storedFence && forgets && !forgottenOnce) {
      // another check forgot the scratch record (and its high-water mark) between our look and
      // our claim: the stored fence says nothing any more; once per check, another slot
      forgottenOnce = true;
      first.release(lease);
      held.clear();
      throw new SlotTaken();
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
    Optional<Lease> late = second.claim(name, firing, holder + "-late", HOLD_TTL);
    if (late.isPresent()) {
      held.add(new Held(second, late.get()));
      if (forgets && !forgottenOnce) {
        // the record (and its watermark) was forgotten by a check that ended on this slot
        // between our release and this claim: once per check, another slot
        forgottenOnce = true;
        throw new SlotTaken();
      }
      throw fail(
          "the server accepted a claim of a firing already run (the watermark did not hold)");
    }
  }

  void checkPause(String name, Instant firing, List<Held> held) {
    if (pauses.isEmpty()) {
      return;
    }
    pauses.get().pause(name, holder, "self-check", false);
    try {
      ClaimResult recorded = second.tryClaim(name, firing, holder + "-other", HOLD_TTL);
      if (recorded.won()) {
        held.add(new Held(second, recorded.lease()));
        throw fail("the server granted a claim of a paused job");
      }
      if (recorded.kind() != ClaimResult.Kind.PAUSED) {
        throw fail(
            "the server did not record a firing of a paused job (answered " + recorded + ")");
      }
      ClaimResult again = first.tryClaim(name, firing, holder, HOLD_TTL);
      if (again.won()) {
        held.add(new Held(first, again.lease()));
      }
      if (again.kind() != ClaimResult.Kind.ALREADY_RUN) {
        throw fail("the server let a paused firing be claimed twice (answered " + again + ")");
      }
      if (!second.inspect(name).map(LeaseState::paused).orElse(false)) {
        throw fail("the server does not show a paused job as paused");
      }
    } finally {
      pauses.get().resume(name, false);
    }
    if (second.inspect(name).map(LeaseState::paused).orElse(true)) {
      throw fail("resume did not end a pause");
    }
  }

  void checkExpiry(String name, Instant firing, List<Held> held) {
    long start = nanoTime.getAsLong();
    Lease lease = claimFree(first, name, firing, shortTtl);
    held.add(new Held(first, lease));
    Optional<Lease> early = second.acquire(name, holder + "-other", shortTtl);
    // the store started the TTL after `start`, and decided this acquire before it returned: an
    // acquire granted and answered within the TTL of `start` took a live lease
    long answered = nanoTime.getAsLong();
    if (early.isPresent()) {
      held.add(new Held(second, early.get()));
      if (answered - start < shortTtl.toNanos()) {
        throw fail("the server let a second client take a live lease");
      }
      return; // this machine was too slow to tell; the claim checks above still hold
    }
    Instant next = firing.plusMillis(1);
    long deadline = start + shortTtl.plus(EXPIRY_GRACE).toNanos();
    while (true) {
      Optional<Lease> taken = second.claim(name, next, holder + "-other", shortTtl);
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
      Instant last = second.inspect(name).map(LeaseState::lastFire).orElse(null);
      if (last != null && !last.isBefore(next)) {
        // another check claimed this name after our lease expired: its watermark now refuses
        // ours, which says nothing about this store; the check starts again on another slot
        throw new SlotTaken();
      }
      if (nanoTime.getAsLong() - deadline > 0) {
        throw fail(
            "a lease with a "
                + shortTtl.toMillis()
                + " ms TTL was still held after "
                + shortTtl.plus(EXPIRY_GRACE).toMillis()
                + " ms: expiry does not follow the TTL on the server's clock");
      }
      pause();
    }
  }

  /**
   * The first claim of a scratch name. When it is refused, another check may have taken the slot
   * meanwhile: it holds or pauses the name, or its claim moved the watermark to or past ours. It
   * may also have held the name during our claim and let it go before our look, so a refusal of a
   * name that looks free is tried again a few times; only a server that keeps refusing a free lease
   * fails.
   */
  private Lease claimFree(LeaseStore store, String name, Instant firing, Duration ttl) {
    for (int attempt = 1; ; attempt++) {
      Optional<Lease> lease = store.claim(name, firing, holder, ttl);
      if (lease.isPresent()) {
        return lease.get();
      }
      Optional<LeaseState> state = store.inspect(name);
      if (state.isPresent()
          && (state.get().held()
              || state.get().paused()
              || (state.get().lastFire() != null && !state.get().lastFire().isBefore(firing)))) {
        throw new SlotTaken();
      }
      if (attempt >= REFUSALS) {
        throw fail("the server refused the first claim of a free lease");
      }
      sleep(POLL_MILLIS * attempt);
    }
  }

  /** Another check took the slot this one was about to use. */
  static final class SlotTaken extends RuntimeException {
    SlotTaken() {
      super(null, null, false, false);
    }
  }

  /** A firing past both watermarks and not before now, at millisecond precision. */
  Instant nextFiring(String... names) {
    Instant firing = clock.instant().truncatedTo(ChronoUnit.MILLIS);
    for (String name : names) {
      Instant last = first.inspect(name).map(LeaseState::lastFire).orElse(null);
      if (last != null && !last.isBefore(firing)) {
        firing = last.plusMillis(1);
      }
    }
    return firing;
  }

  IncompatibleStoreException fail(String behaviour) {
    return new IncompatibleStoreException(
        where + ": " + behaviour + "; Leasehold cannot run safely on it");
  }

  private static void pause() {
    sleep(POLL_MILLIS);
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the store self-check", e);
    }
  }

  record Held(LeaseStore client, Lease lease) {}
}
