package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.time.StoreClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Firings come due on the store's clock: this keeps the scheduler's {@link StoreClock} (its parts'
 * clock) fed with samples of the store's time: a read ({@link LeaseStore#storeTime}) at start and
 * every {@link #READ_EVERY}, and the answer of every won claim (the store's time at the claim is
 * the lease's expiry less its TTL). The firing timers are set after the read at start, so the
 * catch-up and the skew horizon are decided on the store's clock, not on this node's own (unless
 * the store cannot be read then). Its methods are events of the {@link SlotOwner}, except the
 * reads, which run on the calling thread or a worker.
 */
final class StoreTime {
  private static final Logger log = LoggerFactory.getLogger(StoreTime.class);

  /** How often the store's time is read while the scheduler runs. */
  static final Duration READ_EVERY = Duration.ofSeconds(30);

  /** How often a start whose store did not answer asks again. */
  static final Duration START_RETRY = Duration.ofSeconds(1);

  /** Reads at start until one gives a sample (a first call may be slow). */
  private static final int START_READS = 3;

  private final Slots slots;
  private final SchedulerParts parts;

  StoreTime(Slots slots, SchedulerParts parts) {
    this.slots = slots;
    this.parts = parts;
  }

  /**
   * Calling thread, before anything is scheduled: reads the store's time and the names it has a
   * watermark for, then (an event of the owner) runs {@code startSlots} and hands the names to
   * {@code startTimers} ({@code null}: the store could not say). A store that does not answer at
   * start is asked for its time again every {@link #START_RETRY} until it does: until then nothing
   * can be claimed, and the firings are timed on this node's own clock.
   */
  void start(Runnable startSlots, Consumer<Set<String>> startTimers) {
    boolean answered = firstRead();
    Set<String> claimed = answered ? claimedBefore() : null;
    slots
        .owner()
        .run(
            () -> {
              startSlots.run();
              startTimers.accept(claimed);
              if (answered) {
                slots.owner().later(READ_EVERY, this::readNow);
              } else {
                log.warn(
                    "the store did not tell its time at start: firings are timed on this node's"
                        + " clock until it does");
                slots.owner().later(START_RETRY, this::retryStart);
              }
            });
  }

  /** Event: asks the store for its time again after a start it did not answer. */
  private void retryStart() {
    if (!slots.accepting()) {
      return;
    }
    parts
        .workers()
        .execute(
            () -> {
              boolean answered = firstRead();
              slots
                  .owner()
                  .execute(
                      () -> {
                        if (slots.accepting()) {
                          slots
                              .owner()
                              .later(
                                  answered ? READ_EVERY : START_RETRY,
                                  answered ? this::readNow : this::retryStart);
                        }
                      });
            });
  }

  /** Event: a read, on a worker, and the next one. */
  private void readNow() {
    if (!slots.accepting()) {
      return;
    }
    slots.owner().later(READ_EVERY, this::readNow);
    parts.workers().execute(this::read);
  }

  /** Reads until a sample is kept (at most {@link #START_READS}); false when the store failed. */
  private boolean firstRead() {
    for (int i = 0; i < START_READS; i++) {
      Optional<Boolean> kept = read();
      if (kept.isEmpty()) {
        return false;
      }
      if (kept.get() || parts.clock().offset().isPresent()) {
        return true;
      }
    }
    return true;
  }

  /**
   * One read of the store's time: whether its sample was kept (false also for a store without a
   * clock), empty when the store failed.
   */
  private Optional<Boolean> read() {
    StoreClock clock = parts.clock();
    Instant sent = clock.local().instant();
    try {
      Optional<Instant> store = parts.store().storeTime();
      Instant received = clock.local().instant();
      return Optional.of(store.map(s -> clock.observe(sent, received, s)).orElse(false));
    } catch (RuntimeException e) {
      log.debug("could not read the store's time: {}", e.toString());
      return Optional.empty();
    }
  }

  /**
   * A sample from a claim's answer, sent at {@code sent} and answered at {@code received} on this
   * node's clock: the store's time at the claim is a won lease's expiry less its TTL.
   */
  static void sample(StoreClock clock, Instant sent, Instant received, List<ClaimResult> answers) {
    answers.stream()
        .map(ClaimResult::lease)
        .filter(l -> l != null && l.expiresAt() != null)
        .findFirst()
        .ifPresent(l -> clock.observe(sent, received, storeTimeAt(l)));
  }

  private static Instant storeTimeAt(Lease lease) {
    return lease.expiresAt().minus(lease.ttl());
  }

  /**
   * The names the store has a watermark for (one {@link LeaseStore#list} call, before anything is
   * scheduled): a job without one was never claimed by any replica, so the start-up catch-up must
   * not reach back before this start ({@link FiringTimer#start}). {@code null} when the store
   * cannot say now: then every job catches up as usual.
   */
  private Set<String> claimedBefore() {
    try {
      return parts.store().list().stream()
          .filter(s -> s.lastFire() != null)
          .map(LeaseState::name)
          .collect(Collectors.toSet());
    } catch (RuntimeException e) {
      log.warn(
          "could not read which jobs ran before ({}); every job catches up as usual", e.toString());
      return null;
    }
  }
}
