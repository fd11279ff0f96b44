package dev.leasehold.core.testing;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

  @Override
  public synchronized int prune(HistoryRetention retention, Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    Instant cutoff = retention.cutoff(now);
    List<ExecutionRecord> gone = new ArrayList<>();
    for (ExecutionRecord r : records) {
      if (gone.size() < limit && r.finishedAt().isBefore(cutoff)) {
        gone.add(r);
      }
    }
    Map<String, List<ExecutionRecord>> byJob = new HashMap<>();
    records.stream()
        .filter(r -> !gone.contains(r))
        .sorted(Comparator.comparing(ExecutionRecord::startedAt).reversed())
        .forEach(r -> byJob.computeIfAbsent(r.job(), j -> new ArrayList<>()).add(r));
    for (List<ExecutionRecord> newestFirst : byJob.values()) {
      for (int i = retention.maxPerJob(); i < newestFirst.size() && gone.size() < limit; i++) {
        gone.add(newestFirst.get(i));
      }
    }
    gone.forEach(records::remove);
    return gone.size();
  }

  /** Every record, oldest first. */
  public synchronized List<ExecutionRecord> all() {
    return List.copyOf(records);
  }
}
