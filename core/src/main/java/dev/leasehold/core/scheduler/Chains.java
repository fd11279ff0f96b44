package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.schedule.AfterSchedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The hand-offs of chains ({@code after:}): for a job's final run (no retry follows it), one {@link
 * TriggerRequest} of kind {@code after} for each job of the set that follows it on that outcome.
 *
 * <p>The replica that ran the upstream writes them through {@link History} before the upstream's
 * own row, in order: a row that fails waits, and every later row waits behind it, so the upstream's
 * final row never reaches the store without its hand-offs. Any live replica that has the child then
 * takes the request like a {@code leasehold trigger} request ({@link TriggerRequests}), under the
 * child's lease; its id is derived from the child, the upstream and the firing, so a hand-off
 * written twice (a write retried after an ambiguous failure) is still one run.
 */
final class Chains {
  private Chains() {}

  /** The hand-off rows for {@code row}, the final run of its job, among {@code jobs}. */
  static List<ExecutionRecord> handOffs(
      Collection<JobDefinition> jobs, ExecutionRecord row, String node, Instant now) {
    List<ExecutionRecord> rows = new ArrayList<>();
    for (JobDefinition job : jobs) {
      if (job.schedule() instanceof AfterSchedule after
          && after.upstream().equals(row.job())
          && after.follows(row.outcome())) {
        rows.add(TriggerRequest.after(job.name(), row, node, now).requestRow());
      }
    }
    return rows;
  }
}
