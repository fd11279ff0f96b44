package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A manual run ({@link Scheduler#trigger}): on the calling thread, under the job's lease taken with
 * {@code acquire}, so it never overlaps a scheduled run and never moves the watermark. It touches
 * no slot state, so it needs nothing from the {@link SlotOwner}.
 */
record ManualTrigger(SchedulerParts parts, History history) {

  Optional<ExecutionRecord> run(JobDefinition definition) {
    long sent = parts.ticker().nanoTime();
    Optional<Lease> lease =
        parts.store().acquire(definition.name(), parts.node(), definition.policy().ttl());
    if (lease.isEmpty()) {
      return Optional.empty();
    }
    if (!LeaseWatchdog.answeredInTime(sent, lease.get().ttl(), parts.ticker().nanoTime())) {
      JobRun.release(parts.store(), lease.get());
      throw new LeaseStoreException(
          "the store's answer came after the lease's validity had passed; nothing ran");
    }
    Instant now = parts.clock().instant().truncatedTo(ChronoUnit.MILLIS);
    JobRun run = new JobRun(definition, lease.get(), now, 1, TriggerKind.MANUAL, sent, parts);
    ExecutionRecord record = run.run();
    history.record(record);
    return Optional.of(record);
  }
}
