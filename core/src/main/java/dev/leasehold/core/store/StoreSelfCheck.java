package dev.leasehold.core.store;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * Forgetting#forget}, which keeps a record another check holds at that moment), so a store that can
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
  public void run(StoreBackend first, StoreBackend second) {
    SelfCheckSteps steps =
        new SelfCheckSteps(first, second, holder, shortTtl, where, nanoTime, clock);
    Optional<Forgetting> forgetting = first.forgetting();
    long deadline = nanoTime.getAsLong() + SLOTS_WAIT.toNanos();
    while (true) {
      for (int i = 0; i < SLOTS; i++) {
        String slot = SCRATCH_PREFIX + (firstSlot + i) % SLOTS;
        if (steps.busy(slot + ".hold") || steps.busy(slot + ".expiry")) {
          continue;
        }
        try {
          runOn(steps, forgetting, slot);
          return;
        } catch (SelfCheckSteps.SlotTaken e) {
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
      SelfCheckSteps.sleep(100 + java.util.concurrent.ThreadLocalRandom.current().nextLong(200));
    }
  }

  private void runOn(SelfCheckSteps steps, Optional<Forgetting> forgetting, String slot) {
    List<SelfCheckSteps.Held> held = new ArrayList<>();
    String hold = slot + ".hold";
    String expiry = slot + ".expiry";
    try {
      Instant firing = steps.nextFiring(hold, expiry);
      steps.checkClaims(hold, firing, held);
      steps.checkPause(hold, firing.plusMillis(2), held);
      steps.checkExpiry(expiry, firing, held);
    } catch (IncompatibleStoreException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(where)) {
        throw e;
      }
      throw new IncompatibleStoreException(
          where + ": " + e.getMessage() + "; Leasehold cannot run safely on it", e);
    } finally {
      for (SelfCheckSteps.Held h : held) {
        try {
          h.client().release(h.lease());
        } catch (RuntimeException e) {
          // cleaning up as far as the store lets us; its lease ends with its TTL anyway
        }
      }
      forgetting.ifPresent(f -> forgetScratch(f, hold, expiry));
    }
  }

  /** Deletes the scratch records the check leaves; the store keeps one that another check holds. */
  private static void forgetScratch(Forgetting store, String... names) {
    for (String name : names) {
      try {
        store.forget(name);
      } catch (RuntimeException e) {
        // a record left behind is released and is forgotten by the next check of this slot
      }
    }
  }

  /** The node id as lease-name characters, short enough for any store's key. */
  private static String tag(String node) {
    String clean = node == null ? "node" : node.replaceAll("[^A-Za-z0-9._-]", "_");
    return clean.length() > 40 ? clean.substring(0, 40) : clean;
  }
}
