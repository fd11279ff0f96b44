package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Claims that come due together go to the store together. At most one batch goes out per window
 * (default 5 ms): a claim step that comes when no batch went out within the last window goes at the
 * same timer tick (with whatever that tick made due), so a lone claim never waits; steps that come
 * while a window is open wait for its end and go as one batch — under a burst of firings, one batch
 * per window. A batch goes to a worker, which first reports each job's unrun firings ({@link
 * UnrunFirings}, in firing order, before any newer claim of that job) and then asks the store once:
 * {@code tryClaim} for one claim, {@code claimAll} for several (names are distinct: a job has one
 * claim in flight per node). Each answer goes back to {@link Answers}, with the ticker reading
 * taken before the call was sent. Per-firing semantics are those of single claims; a batch that
 * fails as a whole fails every entry.
 */
final class ClaimBatch {

  /** Most claims in one {@code claimAll}; larger batches are split. */
  static final int MAX_BATCH = 500;

  /**
   * One claim step: reports of the slot's unrun firings, then {@code firing} (none: reports only).
   */
  record Claim(JobSlot slot, Instant firing, int attempt) {}

  /** Where the steps go on; called with the scheduler's lock held, except {@link #answered}. */
  interface Answers {
    /** The scheduler stopped before the claim was sent. */
    void stopped(Claim claim);

    /** A reports-only step ended. */
    void reported(JobSlot slot);

    /** The store's answer to one claim (called without the lock). */
    void answered(Claim claim, ClaimResult answer, long sentNanos);
  }

  private final Slots slots;
  private final SchedulerParts parts;
  private final UnrunFirings unrun;
  private final Answers answers;
  private final Duration window;
  private final List<Claim> pending = new ArrayList<>();
  private boolean flushed;
  private long windowEnd;

  ClaimBatch(
      Slots slots, SchedulerParts parts, UnrunFirings unrun, Answers answers, Duration window) {
    this.slots = slots;
    this.parts = parts;
    this.unrun = unrun;
    this.answers = answers;
    this.window = window;
  }

  /** (lock held) Adds a claim step; the first one of a batch sets the flush. */
  void add(Claim claim) {
    pending.add(claim);
    if (pending.size() == 1) {
      long wait = flushed ? windowEnd - parts.ticker().nanoTime() : 0;
      parts.timer().schedule(this::flush, Duration.ofNanos(Math.max(0, wait)));
    }
  }

  /** (lock held) Stop: claims not yet sent are called off, their slots idle. */
  void drop() {
    for (Claim c : pending) {
      c.slot().enter(JobSlot.Phase.IDLE);
    }
    pending.clear();
  }

  /** Timer thread: the window closed; the batch goes to workers. */
  private void flush() {
    List<Claim> claims;
    synchronized (slots.lock()) {
      claims = new ArrayList<>(pending);
      pending.clear();
      flushed = true;
      windowEnd = parts.ticker().nanoTime() + window.toNanos();
    }
    for (int i = 0; i < claims.size(); i += MAX_BATCH) {
      List<Claim> part = claims.subList(i, Math.min(claims.size(), i + MAX_BATCH));
      parts.workers().execute(() -> send(part));
    }
  }

  /** Worker: reports first, then one round trip for every claim. */
  private void send(List<Claim> claims) {
    synchronized (slots.lock()) {
      if (!slots.accepting()) {
        claims.forEach(answers::stopped);
        return;
      }
    }
    List<Claim> toClaim = new ArrayList<>();
    for (Claim c : claims) {
      unrun.settle(c.slot());
      if (c.firing() == null) {
        synchronized (slots.lock()) {
          answers.reported(c.slot());
        }
      } else {
        toClaim.add(c);
      }
    }
    if (toClaim.isEmpty()) {
      return;
    }
    long sent = parts.ticker().nanoTime();
    List<ClaimResult> results = ask(toClaim);
    for (int i = 0; i < toClaim.size(); i++) {
      answers.answered(toClaim.get(i), results.get(i), sent);
    }
  }

  /** One answer per claim, in order. */
  private List<ClaimResult> ask(List<Claim> claims) {
    try {
      if (claims.size() == 1) {
        Claim c = claims.get(0);
        return List.of(
            parts
                .store()
                .tryClaim(
                    c.slot().job.name(), c.firing(), parts.node(), c.slot().job.policy().ttl()));
      }
      List<ClaimRequest> requests =
          claims.stream()
              .map(
                  c ->
                      new ClaimRequest(
                          c.slot().job.name(),
                          c.firing(),
                          parts.node(),
                          c.slot().job.policy().ttl()))
              .toList();
      List<ClaimResult> results = parts.store().claimAll(requests);
      if (results.size() != claims.size()) {
        throw new LeaseStoreException(
            "the store answered " + results.size() + " of " + claims.size() + " claims");
      }
      return results;
    } catch (RuntimeException e) {
      LeaseStoreException failure =
          e instanceof LeaseStoreException l ? l : new LeaseStoreException(e.toString(), e);
      return claims.stream().map(c -> ClaimResult.failed(failure)).toList();
    }
  }
}
