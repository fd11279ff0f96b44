package dev.leasehold.core.lease;

import java.time.Duration;
import java.util.Optional;

/**
 * The run leases of a job whose runs overlap ({@code overlap: allow}): each run, once its firing's
 * claim on the job's lease won, holds one of these instead and the job's lease is released, so the
 * next firing can be claimed while it runs. Seat {@code i} of a job is the plain lease {@link
 * #seatName} {@code _leasehold.run.<job>.<i>}; a run takes the first free seat with {@link
 * LeaseStore#acquire} (the watermark is left alone: the claim on the job's lease made the firing
 * once). Seats are reused, so a job has only as many records as it ever had runs at once, at most
 * {@link #MAX}; the history prune forgets a seat that has been free for a week.
 */
public final class RunSeats {

  /** The prefix of every run seat's lease name. */
  public static final String PREFIX = "_leasehold.run.";

  /** The most runs of one job at once under seats of their own. */
  public static final int MAX = 64;

  /** Longest job part of a seat's name: the name fits under any namespace with {@code .63}. */
  private static final int JOB_PART = NoticeNames.MAX_LENGTH - 3;

  private RunSeats() {}

  /** The lease name of seat {@code i} (0 to {@link #MAX} - 1) of {@code job}. */
  public static String seatName(String job, int i) {
    if (i < 0 || i >= MAX) {
      throw new IllegalArgumentException("seat " + i + " is not between 0 and " + (MAX - 1));
    }
    return NoticeNames.fitted(PREFIX, job, JOB_PART) + "." + i;
  }

  /** Whether {@code name} is a run seat (of some job). */
  public static boolean isSeat(String name) {
    return name.startsWith(PREFIX);
  }

  /** Whether {@code name} is a run seat of {@code job}. */
  public static boolean isSeatOf(String job, String name) {
    String prefix = NoticeNames.fitted(PREFIX, job, JOB_PART) + ".";
    return name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9]{1,2}");
  }

  /**
   * Tries the seats of {@code job} in order and returns the first one granted.
   *
   * @return a seat's lease, or empty when all {@link #MAX} were held
   * @throws LeaseStoreException at the first seat the store could not be asked about
   */
  public static Optional<Lease> tryTake(LeaseStore store, String job, String holder, Duration ttl) {
    for (int i = 0; i < MAX; i++) {
      Optional<Lease> seat = store.acquire(seatName(job, i), holder, ttl);
      if (seat.isPresent()) {
        return seat;
      }
    }
    return Optional.empty();
  }
}
