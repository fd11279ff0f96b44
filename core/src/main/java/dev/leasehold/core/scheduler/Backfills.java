package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The take of a backfill request ({@link TriggerKind#BACKFILL}), under the job's lease: whether its
 * past firing may run now, once per job and firing, whatever the number of backfills that ask for
 * it.
 *
 * <p>The job's lease (taken with {@code acquire}) keeps every run of the job apart, scheduled or
 * not; under it, this reads the job's watermark and newest rows and decides:
 *
 * <ul>
 *   <li>the job is paused cluster-wide: it waits (runs after the resume, while the request is
 *       open);
 *   <li>the schedule may still run or retry the firing ({@link BackfillRule}): not run, ever, by
 *       this request;
 *   <li>a row of the firing says {@code succeeded}: not run (it already succeeded);
 *   <li>another backfill request of the same firing was taken (its taken row is in the queue) and
 *       its run's row is not there yet: its run has ended (the lease is ours) but its row is on its
 *       way; the request waits for a later poll, and runs then only if that row did not succeed;
 *   <li>otherwise it runs.
 * </ul>
 *
 * The taken row is written under the lease before the run, so two backfills of the same firing
 * never both pass: the second one's read under the lease sees the first one's taken row.
 */
final class Backfills {
  /** Rows of the job read under its lease: the runs of the firing being backfilled are recent. */
  static final int JOB_ROWS = 100;

  private Backfills() {}

  /**
   * @param gone why the request will not run (it is done), or null
   * @param later why it cannot run yet (offered again at the next poll), or null
   */
  record Verdict(String gone, String later) {}

  static Verdict judge(
      TriggerRequest request,
      JobDefinition job,
      List<ExecutionRecord> queue,
      SchedulerParts parts,
      ExecutionLog executionLog) {
    Instant firing = request.at();
    Optional<LeaseState> state = parts.store().inspect(job.name());
    if (state.isPresent() && state.get().paused()) {
      return new Verdict(null, "the job is paused");
    }
    Instant watermark = state.map(LeaseState::lastFire).orElse(null);
    Optional<String> refusal =
        BackfillRule.refusal(
            job.schedule(), job.policy(), firing, watermark, parts.clock().instant());
    if (refusal.isPresent()) {
      return new Verdict(refusal.get(), null);
    }
    List<ExecutionRecord> rows =
        executionLog.recent(job.name(), JOB_ROWS).stream()
            .filter(r -> r.fireTime().equals(firing))
            .toList();
    if (rows.stream().anyMatch(r -> r.outcome() == Outcome.SUCCEEDED)) {
      return new Verdict("the firing already succeeded", null);
    }
    for (ExecutionRecord taken : queue) {
      Optional<TriggerRequest> other = takenBackfill(taken, request);
      if (other.isPresent() && other.get().runIn(rows).isEmpty()) {
        return new Verdict(
            null,
            "request " + other.get().id() + " of the same firing ran; its row is not there yet");
      }
    }
    return new Verdict(null, null);
  }

  /** Another backfill request of the same job and firing, if {@code row} is its taken row. */
  private static Optional<TriggerRequest> takenBackfill(ExecutionRecord row, TriggerRequest mine) {
    if (row.outcome() != Outcome.TAKEN
        || row.trigger() != TriggerKind.BACKFILL
        || !row.fireTime().equals(mine.at())
        || row.detail() == null) {
      return Optional.empty();
    }
    var fields = TriggerRequest.fields(row.detail());
    String id = fields.get("request");
    if (!mine.job().equals(fields.get("job")) || id == null || id.equals(mine.id())) {
      return Optional.empty();
    }
    return Optional.of(
        new TriggerRequest(
            id,
            mine.job(),
            mine.at(),
            mine.until(),
            row.node(),
            TriggerKind.BACKFILL,
            row.startedAt(),
            null,
            0));
  }
}
