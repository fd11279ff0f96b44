package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The history of one {@link Namespace}: records are written under the stored job name and read back
 * with the bare one. Reading across all jobs asks the store for the newest records and keeps this
 * namespace's; when other namespaces' records crowd them out it asks for more (four times as many
 * each time, up to {@value #MAX_READ}), so one service alone on its store pays one round trip.
 */
final class NamespacedExecutionLog implements ExecutionLog {
  /** The most records one read across all jobs looks through. */
  static final int MAX_READ = 100_000;

  private final ExecutionLog delegate;
  private final Namespace namespace;

  NamespacedExecutionLog(ExecutionLog delegate, Namespace namespace) {
    this.delegate = delegate;
    this.namespace = namespace;
  }

  @Override
  public void record(ExecutionRecord record) {
    delegate.record(withJob(record, namespace.toStore(record.job())));
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    if (job != null) {
      return delegate.recent(namespace.toStore(job), limit).stream()
          .flatMap(r -> mine(r).stream())
          .toList();
    }
    int ask = limit;
    while (true) {
      List<ExecutionRecord> read = delegate.recent(null, ask);
      List<ExecutionRecord> mine =
          read.stream().flatMap(r -> mine(r).stream()).limit(limit).toList();
      if (mine.size() >= limit || read.size() < ask || ask >= MAX_READ) {
        return mine;
      }
      ask = (int) Math.min(ask * 4L, MAX_READ);
    }
  }

  /**
   * Prunes the whole store: the age limit applies to every namespace's records, the per-job cap to
   * each stored job name, so to each namespace's jobs apart.
   */
  @Override
  public int prune(HistoryRetention retention, Instant now, int limit) {
    return delegate.prune(retention, now, limit);
  }

  private Optional<ExecutionRecord> mine(ExecutionRecord stored) {
    return namespace.fromStore(stored.job()).map(job -> withJob(stored, job));
  }

  private static ExecutionRecord withJob(ExecutionRecord r, String job) {
    if (job.equals(r.job())) {
      return r;
    }
    return new ExecutionRecord(
        job,
        r.fireTime(),
        r.node(),
        r.fence(),
        r.trigger(),
        r.startedAt(),
        r.finishedAt(),
        r.outcome(),
        r.exitCode(),
        r.detail(),
        r.output(),
        r.attempt());
  }
}
