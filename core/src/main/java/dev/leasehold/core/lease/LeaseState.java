package dev.leasehold.core.lease;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a store knows about one lease name, read for {@code status}. Every time here is on the
 * store's clock; {@code held} was decided by the store at the moment of reading.
 *
 * @param name the lease name
 * @param holder the last holder, or {@code null} when the lease was released or never taken
 * @param leaseUntil when the current or last lease ends, or {@code null} if never leased
 * @param lastFire the watermark: the latest firing claimed under this name, or {@code null}
 * @param fence the last fencing token handed out (0 when none)
 * @param held whether a live lease exists right now
 * @param pause the job's cluster-wide pause, or {@code null} when it is not paused
 */
public record LeaseState(
    String name,
    String holder,
    Instant leaseUntil,
    Instant lastFire,
    long fence,
    boolean held,
    Pause pause) {

  public LeaseState {
    Objects.requireNonNull(name, "name");
  }

  /** A state without a pause. */
  public LeaseState(
      String name, String holder, Instant leaseUntil, Instant lastFire, long fence, boolean held) {
    this(name, holder, leaseUntil, lastFire, fence, held, null);
  }

  /** Whether the job is paused cluster-wide. */
  public boolean paused() {
    return pause != null;
  }

  /** The holder of the live lease, empty when the lease is free. */
  public Optional<String> currentHolder() {
    return held ? Optional.ofNullable(holder) : Optional.empty();
  }
}
