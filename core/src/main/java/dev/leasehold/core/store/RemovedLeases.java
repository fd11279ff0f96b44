package dev.leasehold.core.store;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NoticeNames;
import dev.leasehold.core.lease.RunSeats;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Forgets ({@link LeaseStore#forget}) the lease records nothing uses any more, as part of the
 * history prune: the record of a job that is not in the running configuration, whose lease is free,
 * that is not paused, and whose last firing (or, for a name only ever acquired, the end of its last
 * lease) is older than {@link #GRACE}; and a self-check scratch record left behind (a check that
 * could not forget it) once it has been free for {@link #SCRATCH_GRACE}. A removed job's two
 * notification records ({@link NoticeNames}) go with the same grace as its own, and so does a run
 * seat ({@link RunSeats}) free for that long, whether its job is configured or not. Records of
 * Leasehold's other leases ({@code _leasehold.} names: the prune's, a group's slots) are left
 * alone. The store refuses to forget a record that became held or paused meanwhile, so a job that
 * returns is never disturbed; its fence goes on above the old one.
 */
final class RemovedLeases {

  /**
   * How long a removed job's record is kept after its last firing. Longer than any sensible misfire
   * grace (a firing older than the forgotten watermark could otherwise be claimed again) and long
   * enough to undo a removal by mistake with the watermark still there.
   */
  static final Duration GRACE = Duration.ofDays(7);

  /** How long a self-check scratch record left behind is kept (a check takes seconds). */
  static final Duration SCRATCH_GRACE = Duration.ofMinutes(10);

  /**
   * How often the records are looked at: the prune of the first minute of each hour does it (a look
   * lists every record of the store, which is not worth doing every minute).
   */
  static final Duration EVERY = Duration.ofHours(1);

  /** How many records one pass forgets at most; the rest wait for the next pass. */
  static final int BATCH = 500;

  private final LeaseStore store;
  private final Forgetting forgetting;
  private final Supplier<Set<String>> jobs;

  /**
   * @param forgetting the store's port for deleting records; nothing is forgotten without it
   */
  RemovedLeases(LeaseStore store, Optional<Forgetting> forgetting, Supplier<Set<String>> jobs) {
    this.store = store;
    this.forgetting = forgetting.orElse(null);
    this.jobs = jobs;
  }

  /** Whether the prune of {@code minute} also forgets (the first minute of each hour). */
  static boolean due(Instant minute) {
    return minute.getEpochSecond() % EVERY.toSeconds() < 60;
  }

  /**
   * @return how many records were forgotten
   */
  int forget(Instant now) {
    return forget(now, name -> {});
  }

  /**
   * @param forgottenJob told the name of each removed job whose record was forgotten (not of the
   *     scratch, notice or other {@code _leasehold.} names)
   * @return how many records were forgotten
   */
  int forget(Instant now, Consumer<String> forgottenJob) {
    if (jobs == null || forgetting == null) {
      return 0;
    }
    Set<String> configured = jobs.get();
    if (configured == null) {
      return 0;
    }
    Instant before = now.minus(GRACE);
    Set<String> kept = new HashSet<>();
    for (String job : configured) {
      kept.add(NoticeNames.desk(job));
      kept.add(NoticeNames.mark(job));
    }
    int forgotten = 0;
    for (LeaseState state : store.list()) {
      if (forgotten >= BATCH) {
        break;
      }
      if (unused(state, configured, kept, now, before) && forgetting.forget(state.name())) {
        forgotten++;
        if (!state.name().startsWith("_leasehold.") && !NoticeNames.isNoticeName(state.name())) {
          forgottenJob.accept(state.name());
        }
      }
    }
    return forgotten;
  }

  private static boolean unused(
      LeaseState state, Set<String> configured, Set<String> kept, Instant now, Instant before) {
    if (state.held() || state.paused()) {
      return false;
    }
    String name = state.name();
    if (StoreSelfCheck.isScratch(name)) {
      // a check takes seconds; one that just ended may still be about to forget its own names
      return state.leaseUntil() != null && state.leaseUntil().isBefore(now.minus(SCRATCH_GRACE));
    }
    if (NoticeNames.isNoticeName(name)) {
      // a job's notification desk and mark go as its own record does, once it is removed
      if (kept.contains(name)) {
        return false;
      }
    } else if (RunSeats.isSeat(name)) {
      // a run seat carries no watermark: free and unused for the grace, it goes, job or not
    } else if (name.startsWith("_leasehold.") || configured.contains(name)) {
      return false;
    }
    Instant last = state.lastFire();
    if (last == null || (state.leaseUntil() != null && state.leaseUntil().isAfter(last))) {
      last = state.leaseUntil();
    }
    return last != null && last.isBefore(before);
  }
}
