package dev.leasehold.core.job;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * Port: the execution history, kept in the same store as the leases so {@code history} works from
 * any machine that reaches the store. Writes happen after a job ran, never on the claim path. A
 * failing write is logged by the caller and does not change the job's outcome.
 */
public interface ExecutionLog {

  void record(ExecutionRecord record);

  /**
   * The newest records first.
   *
   * @param job only this job's records, or all jobs when {@code null}
   * @param limit at most this many (at least 1)
   */
  List<ExecutionRecord> recent(String job, int limit);

  /**
   * How far back {@link #before} reaches in its default form: the newest this many records (of the
   * job, or of all jobs). A store that answers {@link #before} with a query of its own has no such
   * bound.
   */
  int BEFORE_WINDOW = 1000;

  /**
   * A page further back in time: the records whose firing is strictly before {@code before}, the
   * latest firing first (records of one firing by their start, newest first).
   *
   * <p>The default reads the newest {@link #BEFORE_WINDOW} records with {@link #recent} and pages
   * over them in memory, so it does not reach records older than those.
   *
   * @param job only this job's records, or all jobs when {@code null}
   * @param before only records with {@link ExecutionRecord#fireTime()} strictly before this
   * @param limit at most this many (at least 1)
   */
  default List<ExecutionRecord> before(String job, Instant before, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    return recent(job, Math.max(BEFORE_WINDOW, limit)).stream()
        .filter(r -> r.fireTime().isBefore(before))
        .sorted(
            Comparator.comparing(ExecutionRecord::fireTime)
                .thenComparing(ExecutionRecord::startedAt)
                .reversed())
        .limit(limit)
        .toList();
  }

  /**
   * Removes at most {@code limit} records that {@code retention} no longer keeps: first records
   * written before {@link HistoryRetention#cutoff cutoff(now)}, then the oldest records of every
   * job that has more than {@link HistoryRetention#maxPerJob}. Each call is a small batch, so the
   * caller can spread a large backlog over many calls without holding the store for long; records
   * written meanwhile are never lost, only ones the policy no longer keeps are removed. Safe to
   * call from several clients at once (a record is removed once; the counts may then overlap).
   *
   * <p>How a store tells a record's age: SQL and MongoDB by its {@code finishedAt}; Redis by its
   * stream id (the server's clock at the write); etcd by its key (the writer's clock at the write);
   * ZooKeeper by the node's creation time (the server's clock).
   *
   * @param now the present on the caller's clock
   * @param limit at most this many are removed by this call (at least 1)
   * @return how many were removed; less than {@code limit} when nothing more is due now
   */
  int prune(HistoryRetention retention, Instant now, int limit);
}
