package dev.leasehold.core.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's clock as this replica estimates it: its own wall clock plus an offset learnt from the
 * store's answers. Each answer that carries the store's time is a sample: the store read its clock
 * somewhere between the send and the receipt, so the offset is the store's time less the midpoint
 * of the two local readings, uncertain by half the round trip. The estimate kept is the sample with
 * the least uncertainty, where an older sample counts as less certain by {@link #AGE_PENALTY} per
 * second of its age (so a newer sample soon wins, and a jump of either clock is followed within
 * seconds of the next sample); a sample whose round trip took longer than {@link #MAX_ROUND_TRIP}
 * says too little and is ignored. Until the first sample the offset is 0.
 *
 * <p>Replicas whose wall clocks differ by seconds read the same store clock within their round
 * trips and agree on when a firing is due. Thread-safe: samples arrive on workers, readers are
 * anywhere.
 */
public final class StoreClock extends Clock {
  private static final Logger log = LoggerFactory.getLogger(StoreClock.class);

  /** How much less certain a sample becomes per second of its age. */
  public static final Duration AGE_PENALTY = Duration.ofMillis(1);

  /** Samples with a longer round trip are ignored. */
  public static final Duration MAX_ROUND_TRIP = Duration.ofSeconds(1);

  /** A change of the offset by more than this is logged. */
  private static final Duration NOTABLE = Duration.ofMillis(500);

  private final Clock local;
  private final Ticker ticker;
  private Estimate estimate;

  /** One sample: the offset, half its round trip, and the ticker reading when it was taken. */
  private record Estimate(Duration offset, long halfRoundTripNanos, long takenNanos) {
    long uncertaintyAt(long nanos) {
      long ageSeconds = Math.max(0, nanos - takenNanos) / 1_000_000_000L;
      return halfRoundTripNanos + ageSeconds * AGE_PENALTY.toNanos();
    }
  }

  /**
   * @param local this replica's wall clock
   * @param ticker its monotonic clock, for the samples' age
   */
  public StoreClock(Clock local, Ticker ticker) {
    this.local = Objects.requireNonNull(local, "local");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** This replica's own wall clock, for the readings around a call to the store. */
  public Clock local() {
    return local;
  }

  /**
   * A sample: the store's clock read {@code store} while a call was under way that was sent at
   * {@code sent} and answered at {@code received}, both on {@link #local()}. Kept when it is more
   * certain than the estimate held; ignored when its round trip is negative (the local clock was
   * set back in between) or longer than {@link #MAX_ROUND_TRIP}.
   *
   * @return whether it became the estimate
   */
  public boolean observe(Instant sent, Instant received, Instant store) {
    Duration roundTrip = Duration.between(sent, received);
    if (roundTrip.isNegative() || roundTrip.compareTo(MAX_ROUND_TRIP) > 0) {
      return false;
    }
    Instant midpoint = sent.plus(roundTrip.dividedBy(2));
    long now = ticker.nanoTime();
    Estimate sample = new Estimate(Duration.between(midpoint, store), roundTrip.toNanos() / 2, now);
    Duration before;
    synchronized (this) {
      if (estimate != null && sample.uncertaintyAt(now) > estimate.uncertaintyAt(now)) {
        return false;
      }
      before = estimate == null ? null : estimate.offset();
      estimate = sample;
    }
    if (before == null || sample.offset().minus(before).abs().compareTo(NOTABLE) > 0) {
      log.info(
          "store clock: offset {} ms (the store's clock less this node's; was {}, round trip {} ms)",
          sample.offset().toMillis(),
          before == null ? "unknown" : before.toMillis() + " ms",
          roundTrip.toMillis());
    }
    return true;
  }

  /** The store's clock less this replica's, once a sample was taken. */
  public synchronized Optional<Duration> offset() {
    return Optional.ofNullable(estimate).map(Estimate::offset);
  }

  @Override
  public Instant instant() {
    Duration offset;
    synchronized (this) {
      offset = estimate == null ? Duration.ZERO : estimate.offset();
    }
    return local.instant().plus(offset);
  }

  @Override
  public ZoneId getZone() {
    return local.getZone();
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the store's clock is read as instants only");
  }
}
