package dev.leasehold.app.runner;

import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.TriggerKind;
import java.time.Instant;

/** Job contexts as the scheduler makes them, for runner tests. */
final class JobContexts {
  static final Instant FIRING = Instant.parse("2026-11-30T06:30:00Z");

  private JobContexts() {}

  static JobContext of(String job, long fence) {
    return new JobContext(job, FIRING, fence, "node-a", 1, TriggerKind.SCHEDULED, null);
  }
}
