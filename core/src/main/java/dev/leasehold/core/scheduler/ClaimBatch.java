package dev.leasehold.core.scheduler;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Claims that come due together go to the store together. At most one batch goes out per window
 * (default 5 ms): a claim step that comes when no batch went out within the last window goes at the
 * same timer tick (with whatever that tick made due), so a lone claim never waits; steps that come
 * while a window is open wait for its end and go as one batch — under a burst of firings, one batch
 * per window. A batch goes to a worker, which first reports each job's unrun firings ({@link
 * UnrunFirings}, in firing order, before any newer claim of that job) and then asks the store once:
 * {@code tryClaim} for one claim, {@code claimAll} for several (names are distinct: a job has one
 * step in flight per node). What the worker learns goes back to the {@link SlotOwner} as events of
 * {@link Answers}, with the ticker readings taken before the call was sent and after it answered.
 * Per-firing semantics are those of single claims; a batch that fails as a whole fails every entry.
 *
 * <p>{@link #add}, {@link #drop} and the flush are events of the owner; {@link #send} runs on a
 * worker and reads only what the owner handed it (each step carries its job). A step sent just as a
 * stop begins is answered as usual: a won claim runs under the shutdown grace.
 */
final class ClaimBatch {

  /** Most claims in one {@code claimAll}; larger batches are split. */
  static final int MAX_BATCH = 500;

  /** Where the steps go on; every method is an event of the owner. */
  interface Answers {
    /** The scheduler stopped before the step was sent. */
    void stopped(ClaimStep step);

    /**
     * The step's reports were sent: {@code settled} are decided. A {@link ClaimStep.Report} ends
     * here; a {@link ClaimStep.Claim} goes on to {@link #answered}.
     */
    void reported(ClaimStep step, List<Instant> settled);

    /** The store's answer to one claim. */
    void answered(ClaimStep.Claim claim, ClaimResult answer, long sentNanos, long receivedNanos);
  }

  /** A step as it leaves the owner: with the slot's unrun firings to report first. */
  private record Outgoing(ClaimStep step, List<Map.Entry<Instant, JobSlot.Unrun>> reports) {}

  private final Slots slots;
  private final SchedulerParts parts;
  private final UnrunFirings unrun;
  private final Answers answers;
  private final Duration window;
  private final List<ClaimStep> pending = new ArrayList<>();
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

  /** Event: adds a claim step; the first one of a batch sets the flush. */
  void add(ClaimStep step) {
    slots.owner().check();
    pending.add(step);
    if (pending.size() == 1) {
      long wait = flushed ? windowEnd - parts.ticker().nanoTime() : 0;
      slots.owner().later(Duration.ofNanos(Math.max(0, wait)), this::flush);
    }
  }

  /** Event (stop): steps not yet sent are called off; returns their slots. */
  List<JobSlot> drop() {
    slots.owner().check();
    List<JobSlot> dropped = pending.stream().map(ClaimStep::slot).toList();
    pending.clear();
    return dropped;
  }

  /** Event: the window closed; the batch, with each slot's reports, goes to workers. */
  private void flush() {
    if (!slots.accepting()) {
      List<ClaimStep> stopped = List.copyOf(pending);
      pending.clear();
      stopped.forEach(answers::stopped);
      return;
    }
    List<Outgoing> batch = new ArrayList<>();
    for (ClaimStep step : pending) {
      List<Map.Entry<Instant, JobSlot.Unrun>> reports = step.slot().unrun();
      if (step instanceof ClaimStep.Claim claim) {
        // a claim reports only the firings before its own: reporting a later one first would
        // move the watermark past the firing claimed (a buffered firing behind a run)
        reports.removeIf(e -> !e.getKey().isBefore(claim.firing()));
      }
      batch.add(new Outgoing(step, reports));
    }
    pending.clear();
    flushed = true;
    windowEnd = parts.ticker().nanoTime() + window.toNanos();
    for (int i = 0; i < batch.size(); i += MAX_BATCH) {
      List<Outgoing> part = batch.subList(i, Math.min(batch.size(), i + MAX_BATCH));
      parts.workers().execute(() -> send(part));
    }
  }

  /** Worker: reports first, then one round trip for every claim. */
  private void send(List<Outgoing> batch) {
    SlotOwner owner = slots.owner();
    List<ClaimStep.Claim> claims = new ArrayList<>();
    for (Outgoing o : batch) {
      List<Instant> settled =
          o.reports().isEmpty() ? List.of() : unrun.settle(o.step().job(), o.reports());
      if (o.step() instanceof ClaimStep.Claim claim) {
        claims.add(claim);
        if (!settled.isEmpty()) {
          owner.execute(() -> answers.reported(claim, settled));
        }
      } else {
        owner.execute(() -> answers.reported(o.step(), settled));
      }
    }
    if (claims.isEmpty()) {
      return;
    }
    Instant sentAt = parts.clock().local().instant();
    long sent = parts.ticker().nanoTime();
    List<ClaimResult> results = ask(claims);
    long received = parts.ticker().nanoTime();
    StoreTime.sample(parts.clock(), sentAt, parts.clock().local().instant(), results);
    owner.execute(
        () -> {
          for (int i = 0; i < claims.size(); i++) {
            answers.answered(claims.get(i), results.get(i), sent, received);
          }
        });
  }

  /** One answer per claim, in order. */
  private List<ClaimResult> ask(List<ClaimStep.Claim> claims) {
    try {
      if (claims.size() == 1) {
        ClaimStep.Claim c = claims.get(0);
        return List.of(
            parts
                .store()
                .tryClaim(c.job().name(), c.firing(), parts.node(), c.job().policy().ttl()));
      }
      List<ClaimRequest> requests =
          claims.stream()
              .map(
                  c ->
                      new ClaimRequest(
                          c.job().name(), c.firing(), parts.node(), c.job().policy().ttl()))
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
