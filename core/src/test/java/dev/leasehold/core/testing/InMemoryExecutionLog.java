package dev.leasehold.core.testing;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** An {@link ExecutionLog} in memory, shared by the schedulers of one virtual-time test. */
public final class InMemoryExecutionLog implements ExecutionLog {
  private final List<ExecutionRecord> records = new ArrayList<>();

  @Override
  public synchronized void record(ExecutionRecord record) {
    records.add(record);
  }

  @Override
  public synchronized List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    return records.stream()
        .filter(r -> job == null || r.job().equals(job))
        .sorted(Comparator.comparing(ExecutionRecord::startedAt).reversed())
        .limit(limit)
        .toList();
  }

  /** Every record, oldest first. */
  public synchronized List<ExecutionRecord> all() {
    return List.copyOf(records);
  }
}
