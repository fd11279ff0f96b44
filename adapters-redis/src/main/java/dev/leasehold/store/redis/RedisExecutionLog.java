package dev.leasehold.store.redis;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.RedisOptions;
import dev.leasehold.store.redis.redlock.Quorum;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link ExecutionLog} as one capped stream per job ({@code <prefix>{<job>}:history}, {@code XADD
 * MAXLEN ~ N}), so history never grows without bound. "Newest first" is the order of the stream
 * ids, which the server assigns from its own clock when the record is written.
 *
 * <p>On a Redlock store a record goes to every node (it counts as written when one node took it)
 * and reads merge the nodes, dropping copies by the record's random id. History is informational:
 * it carries no lease and needs no quorum.
 */
final class RedisExecutionLog implements ExecutionLog {
  static final long DEFAULT_MAX_PER_JOB = RedisOptions.DEFAULT_HISTORY_MAX;

  private final List<RedisNode> nodes;
  private final LeaseKeys keys;
  private final long maxPerJob;

  RedisExecutionLog(List<RedisNode> nodes, LeaseKeys keys, long maxPerJob) {
    this.nodes = List.copyOf(nodes);
    this.keys = keys;
    this.maxPerJob = maxPerJob;
  }

  @Override
  public void record(ExecutionRecord r) {
    Objects.requireNonNull(r, "record");
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("id", LeaseArguments.newToken());
    fields.put("job", LeaseArguments.name(r.job()));
    fields.put("fire", r.fireTime().toString());
    fields.put("node", r.node());
    fields.put("fence", Long.toString(r.fence()));
    fields.put("trigger", r.trigger().name());
    fields.put("started", r.startedAt().toString());
    fields.put("finished", r.finishedAt().toString());
    fields.put("outcome", r.outcome().name());
    if (r.exitCode() != null) {
      fields.put("exit", r.exitCode().toString());
    }
    if (r.detail() != null) {
      fields.put("detail", r.detail());
    }
    if (r.output() != null) {
      fields.put("output", r.output());
    }
    if (r.attempt() != 1) {
      fields.put("attempt", Integer.toString(r.attempt()));
    }
    XAddArgs args = new XAddArgs().maxlen(maxPerJob).approximateTrimming();
    String key = keys.history(r.job());
    if (nodes.size() == 1) {
      RedisNode node = nodes.get(0);
      node.await(node.call(c -> c.xadd(key, args, fields)), "history record of " + r.job());
      return;
    }
    List<String> ids =
        Quorum.ask(
            nodes,
            n -> n.call(c -> c.xadd(key, args, fields)),
            System.nanoTime() + nodes.get(0).timeout().toNanos());
    if (Quorum.count(ids, id -> true) == 0) {
      throw new LeaseStoreException("Redis: no node stored the history record of " + r.job());
    }
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    if (job != null) {
      LeaseArguments.name(job);
    }
    Map<String, StreamMessage<String, String>> byId = new HashMap<>();
    LeaseStoreException failure = null;
    int answered = 0;
    for (RedisNode node : nodes) {
      try {
        List<String> streams =
            job != null ? List.of(keys.history(job)) : node.scan(keys.historyPattern());
        for (String stream : streams) {
          for (StreamMessage<String, String> m :
              node.await(
                  node.call(c -> c.xrevrange(stream, Range.unbounded(), Limit.from(limit))),
                  "XREVRANGE")) {
            byId.merge(m.getBody().get("id"), m, (a, b) -> newer(a, b) ? a : b);
          }
        }
        answered++;
      } catch (LeaseStoreException e) {
        failure = e;
      }
    }
    if (answered == 0) {
      throw failure;
    }
    // newest first by when the run started, as the other stores order history; stream ids only
    // break ties (ids of different streams written in one millisecond do not order them)
    return byId.values().stream()
        .sorted(Comparator.comparing(StreamMessage<String, String>::getId, ID_ORDER).reversed())
        .map(RedisExecutionLog::decode)
        .sorted(Comparator.comparing(ExecutionRecord::startedAt).reversed())
        .limit(limit)
        .toList();
  }

  /**
   * Per job stream (found with SCAN): the entries whose stream id (the server's clock at the write)
   * is before the cutoff, then the oldest beyond {@code max-per-job}, each read with a bounded
   * {@code XRANGE ... COUNT} and removed with {@code XDEL}, never more than {@code limit} per node.
   * On Redlock every node is pruned (each holds its own copy); the count is the largest of them.
   */
  @Override
  public int prune(HistoryRetention retention, Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    String before = Long.toString(retention.cutoff(now).toEpochMilli() - 1);
    long most = 0;
    LeaseStoreException failure = null;
    int answered = 0;
    for (RedisNode node : nodes) {
      try {
        long removed = 0;
        for (String stream : node.scan(keys.historyPattern())) {
          if (removed >= limit) {
            break;
          }
          long budget = limit - removed;
          removed +=
              delete(
                  node,
                  stream,
                  Range.from(Range.Boundary.unbounded(), Range.Boundary.including(before)),
                  budget);
          long length = node.await(node.call(c -> c.xlen(stream)), "XLEN");
          long excess = Math.min(length - retention.maxPerJob(), limit - removed);
          if (excess > 0) {
            removed += delete(node, stream, Range.unbounded(), excess);
          }
        }
        most = Math.max(most, removed);
        answered++;
      } catch (LeaseStoreException e) {
        failure = e;
      }
    }
    if (answered == 0) {
      throw failure;
    }
    return (int) most;
  }

  /** Deletes the oldest {@code count} entries of {@code range}; returns how many went. */
  private static long delete(RedisNode node, String stream, Range<String> range, long count) {
    List<StreamMessage<String, String>> oldest =
        node.await(node.call(c -> c.xrange(stream, range, Limit.from(count))), "XRANGE");
    if (oldest.isEmpty()) {
      return 0;
    }
    String[] ids = oldest.stream().map(StreamMessage::getId).toArray(String[]::new);
    return node.await(node.call(c -> c.xdel(stream, ids)), "XDEL");
  }

  private static boolean newer(StreamMessage<String, String> a, StreamMessage<String, String> b) {
    return ID_ORDER.compare(a.getId(), b.getId()) > 0;
  }

  private static final Comparator<String> ID_ORDER =
      Comparator.<String>comparingLong(id -> Long.parseLong(id.substring(0, id.indexOf('-'))))
          .thenComparingLong(id -> Long.parseLong(id.substring(id.indexOf('-') + 1)));

  private static ExecutionRecord decode(StreamMessage<String, String> message) {
    Map<String, String> f = message.getBody();
    String exit = f.get("exit");
    return new ExecutionRecord(
        f.get("job"),
        Instant.parse(f.get("fire")),
        f.get("node"),
        Long.parseLong(f.get("fence")),
        TriggerKind.valueOf(f.get("trigger")),
        Instant.parse(f.get("started")),
        Instant.parse(f.get("finished")),
        Outcome.valueOf(f.get("outcome")),
        exit == null ? null : Integer.valueOf(exit),
        f.get("detail"),
        f.get("output"),
        f.get("attempt") == null ? 1 : Integer.parseInt(f.get("attempt")));
  }
}
