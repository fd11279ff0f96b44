package dev.leasehold.core.store;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The conformance self-check: proves on the real server, through the port alone, the behaviours
 * every guarantee rests on, before anything is scheduled. A server that speaks a store's protocol
 * without being that store (a "compatible" server, a proxy) can get one of them subtly wrong; then
 * the lock must refuse to start, not silently stop locking.
 *
 * <p>On two scratch names ({@value #SCRATCH_PREFIX}{@code <slot>.hold} and {@code .expiry}) and two
 * independent clients it checks, in about the short TTL plus a few dozen round trips:
 *
 * <ol>
 *   <li>a claim of a free lease wins, and the fence moved past the stored one (G1, G6);
 *   <li>the store keeps what it was told: the name, the holder, the firing and the fence (G1);
 *   <li>the same firing is refused the second time, and a second client is refused while the lease
 *       lives, for a claim and for an acquire (G1);
 *   <li>a wrong token does not release the lease; the right one does (G7);
 *   <li>a released firing is still refused: the watermark holds (G1, G2);
 *   <li>a lease with a short TTL ({@link #SHORT_TTL}, or its store's own) is not taken before the
 *       TTL, and is claimable after it on the store's clock (G3), with a larger fence (G6);
 *   <li>on a store that keeps pauses: a claim of a paused name is recorded as paused by one client
 *       and won by none, the pause shows in {@code inspect}, and {@code resume} ends it.
 * </ol>
 *
 * <p>When the check ends (passed or failed) it forgets its two scratch names ({@link
 * LeaseStore#forget}, which keeps a record another check holds at that moment), so a store that can
 * forget keeps none of them between checks. On a store that cannot, they stay, released. They come
 * from {@value #SLOTS} slots, so such a store holds at most {@code 2 × SLOTS} of them however many
 * nodes (or {@code validate --connect} runs, each a new node id by default) checked it: a node
 * starts at the slot its id hashes to and moves to the next one when another check holds it, or
 * took it between the look and the claim; when every slot is in use (more checks at once than
 * slots) it waits for one, up to {@code SLOTS_WAIT}. A failure is an {@link
 * IncompatibleStoreException} whose message is one line naming the store, its redacted address and
 * the missing behaviour; a store error during the check propagates as it is (unreachable,
 * unsupported), so it is reported as what it is.
 */
public final class StoreSelfCheck {
  /** Every scratch name starts with this; no job of a configuration needs it. */
  public static final String SCRATCH_PREFIX = "_leasehold.self-check.";

  /** The TTL whose expiry the check waits for, unless its store names a shorter one. */
  public static final Duration SHORT_TTL = Duration.ofMillis(300);

  /** The shortest TTL a store may name for the check: a few of its polls. */
  public static final Duration SHORTEST_TTL = Duration.ofMillis(50);

  private static final Duration HOLD_TTL = Duration.ofSeconds(10);
  private static final Duration EXPIRY_GRACE = Duration.ofSeconds(3);
  private static final long POLL_MILLIS = 20;
  private static final int REFUSALS = 4;

  /** How many pairs of scratch names there are. */
  public static final int SLOTS = 8;

  /** How long a check waits for a free slot when more checks than slots run at once. */
  static final Duration SLOTS_WAIT = Duration.ofSeconds(30);

  private final Duration shortTtl;
  private final String where;
  private final int firstSlot;
  private final String holder;
  private final LongSupplier nanoTime;
  private final Clock clock;
  private boolean forgottenOnce;

  /**
   * @param settings the store's settings (for the failure line: type and redacted address)
   * @param node this node's id: the scratch names and holders carry it
   */
  public StoreSelfCheck(StoreSettings settings, String node) {
    this(settings, node, SHORT_TTL);
  }

  /**
   * @param shortTtl the TTL whose expiry the check waits for ({@link StoreFactory#selfCheckTtl}),
   *     at least {@link #SHORTEST_TTL}
   */
  public StoreSelfCheck(StoreSettings settings, String node, Duration shortTtl) {
    this(settings, node, shortTtl, System::nanoTime, Clock.systemUTC());
  }

  StoreSelfCheck(StoreSettings settings, String node, LongSupplier nanoTime, Clock clock) {
    this(settings, node, SHORT_TTL, nanoTime, clock);
  }

  private StoreSelfCheck(
      StoreSettings settings, String node, Duration shortTtl, LongSupplier nanoTime, Clock clock) {
    if (shortTtl.compareTo(SHORTEST_TTL) < 0) {
      throw new IllegalArgumentException(
          "self-check TTL " + shortTtl.toMillis() + " ms is under " + SHORTEST_TTL.toMillis());
    }
    this.shortTtl = shortTtl;
    this.where = describe(settings);
    this.firstSlot = Math.floorMod(tag(node).hashCode(), SLOTS);
    this.holder = "self-check-" + tag(node);
    this.nanoTime = nanoTime;
    this.clock = clock;
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
    forgottenOnce = false;
    long deadline = nanoTime.getAsLong() + SLOTS_WAIT.toNanos();
    while (true) {
      for (int i = 0; i < SLOTS; i++) {
        String slot = SCRATCH_PREFIX + (firstSlot + i) % SLOTS;
        if (busy(first, slot + ".hold") || busy(first, slot + ".expiry")) {
          continue;
        }
        try {
          runOn(first, second, slot);
          return;
        } catch (SlotTaken e) {
          // another check took this slot between the look and the claim: the next one
        }
      }
      if (nanoTime.getAsLong() - deadline > 0) {
        throw new LeaseStoreException(
            where
                + ": all "
                + SLOTS
                + " self-check slots stayed in use by other checks for "
                + SLOTS_WAIT.toSeconds()
                + " s; try again");
      }
      // more checks at once than slots (many replicas starting together): one ends within a second
      sleep(100 + java.util.concurrent.ThreadLocalRandom.current().nextLong(200));
    }
  }

  private void runOn(LeaseStore first, LeaseStore second, String slot) {
    List<Held> held = new ArrayList<>();
    String hold = slot + ".hold";
    String expiry = slot + ".expiry";
    try {
      Instant firing = nextFiring(first, hold, expiry);
      checkClaims(first, second, hold, firing, held);
      checkPause(first, second, hold, firing.plusMillis(2), held);
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
      forgetScratch(first, hold, expiry);
    }
  }

  /** Deletes the scratch records the check leaves; the store keeps one that another check holds. */
  private static void forgetScratch(LeaseStore store, String... names) {
    if (!store.supportsForget()) {
      return;
    }
    for (String name : names) {
      try {
        store.forget(name);
      } catch (RuntimeException e) {
        // a record left behind is released and is forgotten by the next check of this slot
      }
    }
  }

  private void checkClaims(
      LeaseStore first, LeaseStore second, String name, Instant firing, List<Held> held) {
    long storedFence = first.inspect(name).map(LeaseState::fence).orElse(0L);
    Lease lease = claimFree(first, name, firing, HOLD_TTL);
    held.add(new Held(first, lease));
    if (!name.equals(lease.name())) {
      throw fail("the server answered a claim of " + name + " with the lease " + lease.name());
    }
    if (lease.fence() <= storedFence && first.supportsForget() && !forgottenOnce) {
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
      if (first.supportsForget() && !forgottenOnce) {
        // the record (and its watermark) was forgotten by a check that ended on this slot
        // between our release and this claim: once per check, another slot
        forgottenOnce = true;
        throw new SlotTaken();
      }
      throw fail(
          "the server accepted a claim of a firing already run (the watermark did not hold)");
    }
  }

  private void checkPause(
      LeaseStore first, LeaseStore second, String name, Instant firing, List<Held> held) {
    if (!first.supportsPause()) {
      return;
    }
    first.pause(name, holder, "self-check", false);
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
      first.resume(name, false);
    }
    if (second.inspect(name).map(LeaseState::paused).orElse(true)) {
      throw fail("resume did not end a pause");
    }
  }

  private void checkExpiry(
      LeaseStore first, LeaseStore second, String name, Instant firing, List<Held> held) {
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

  /** Whether another check holds the scratch name now. */
  private static boolean busy(LeaseStore store, String name) {
    return store.inspect(name).map(LeaseState::held).orElse(false);
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
  private static final class SlotTaken extends RuntimeException {
    SlotTaken() {
      super(null, null, false, false);
    }
  }

  /** A firing past both watermarks and not before now, at millisecond precision. */
  private Instant nextFiring(LeaseStore store, String... names) {
    Instant firing = clock.instant().truncatedTo(ChronoUnit.MILLIS);
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
    sleep(POLL_MILLIS);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the store self-check", e);
    }
  }

  private record Held(LeaseStore client, Lease lease) {}
}
