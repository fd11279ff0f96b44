package dev.leasehold.app.runner;

import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.TriggerKind;
import java.time.Instant;

/** Job contexts as the scheduler makes them, for runner tests. */
final class JobContexts {
  static final Instant FIRING = Instant.parse("2026-11-30T06:30:00Z");

  private JobContexts() {}

  /** A context whose lease is valid for an hour: a command job runs under its supervisor. */
  static JobContext of(String job, long fence) {
    JobContext context = unsupervised(job, fence);
    long until = System.nanoTime() + 3_600_000_000_000L;
    context.leaseValidity(() -> (until - System.nanoTime()) / 1_000_000);
    return context;
  }

  /** A context that does not know its lease's validity: a command job runs unsupervised. */
  static JobContext unsupervised(String job, long fence) {
    return new JobContext(job, FIRING, fence, "node-a", 1, TriggerKind.SCHEDULED, null);
  }
}
