package dev.leasehold.core.lease;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer to one claim attempt, decided by the store in the same atomic step as the claim: won
 * (with the lease), or refused with the reason the store saw. The reason lets the scheduler tell
 * "this firing already ran" (give up) from "a run of an earlier firing still holds the lease" (wait
 * briefly) without a second round trip.
 *
 * <p>Precedence: a watermark at or past the firing wins ({@link Kind#ALREADY_RUN}), since such a
 * firing can never be claimed again whoever holds the lease; then a pause ({@link Kind#PAUSED},
 * whether or not a lease is held); then a live lease ({@link Kind#HELD}).
 *
 * @param kind what happened
 * @param lease the lease when {@link Kind#WON}, else {@code null}
 * @param holder the live holder when {@link Kind#HELD} (may be {@code null} if the store does not
 *     say), else {@code null}
 * @param watermark the watermark the store saw when refused (may be {@code null}: never claimed, or
 *     the store does not say), else {@code null}
 * @param failure the store error when {@link Kind#FAILED} (only in batch answers; a single claim
 *     throws instead), else {@code null}
 */
public record ClaimResult(
    Kind kind, Lease lease, String holder, Instant watermark, LeaseStoreException failure) {

  /** The outcome of one claim attempt. */
  public enum Kind {
    /** The claim succeeded: the firing is this holder's alone. */
    WON,
    /** The watermark is earlier than the firing but a live lease exists (an earlier run). */
    HELD,
    /** The watermark is at or past the firing: someone already claimed it. */
    ALREADY_RUN,
    /**
     * The job is paused: this claim moved the watermark to the firing (so no replica can run it or
     * record it again) but started no lease. The claimant alone records the firing as paused.
     */
    PAUSED,
    /** The store could not be asked or answered ambiguously: not acquired (fail closed). */
    FAILED
  }

  public ClaimResult {
    Objects.requireNonNull(kind, "kind");
    if ((kind == Kind.WON) != (lease != null)) {
      throw new IllegalArgumentException("a lease goes with WON and only with it");
    }
    if ((kind == Kind.FAILED) != (failure != null)) {
      throw new IllegalArgumentException("a failure goes with FAILED and only with it");
    }
  }

  public static ClaimResult won(Lease lease) {
    return new ClaimResult(Kind.WON, Objects.requireNonNull(lease, "lease"), null, null, null);
  }

  public static ClaimResult held(String holder, Instant watermark) {
    return new ClaimResult(Kind.HELD, null, holder, watermark, null);
  }

  public static ClaimResult alreadyRun(Instant watermark) {
    return new ClaimResult(Kind.ALREADY_RUN, null, null, watermark, null);
  }

  /** The claim recorded {@code firing} as paused (see {@link Kind#PAUSED}). */
  public static ClaimResult paused(Instant firing) {
    return new ClaimResult(Kind.PAUSED, null, null, Objects.requireNonNull(firing, "firing"), null);
  }

  public static ClaimResult failed(LeaseStoreException failure) {
    return new ClaimResult(
        Kind.FAILED, null, null, null, Objects.requireNonNull(failure, "failure"));
  }

  /**
   * Classifies a refusal from the state read right after it (for stores that cannot say why in the
   * claim's own answer). Not atomic with the claim: the state may have moved on, so the answer is a
   * hint for waiting, never a basis for running anything.
   */
  public static ClaimResult refusal(Optional<LeaseState> state, Instant firing) {
    if (state.isEmpty()) {
      return held(null, null);
    }
    LeaseState s = state.get();
    if (s.lastFire() != null && !s.lastFire().isBefore(firing)) {
      return alreadyRun(s.lastFire());
    }
    return s.held() ? held(s.holder(), s.lastFire()) : held(null, s.lastFire());
  }

  public boolean won() {
    return kind == Kind.WON;
  }

  /** The lease when won. */
  public Optional<Lease> leaseIfWon() {
    return Optional.ofNullable(lease);
  }

  @Override
  public String toString() {
    return switch (kind) {
      case WON -> "won(" + lease + ")";
      case HELD -> "held(holder=" + holder + ", watermark=" + watermark + ")";
      case ALREADY_RUN -> "already-run(watermark=" + watermark + ")";
      case PAUSED -> "paused(firing=" + watermark + ")";
      case FAILED -> "failed(" + failure.getMessage() + ")";
    };
  }
}
