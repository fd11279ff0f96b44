package dev.leasehold.store.etcd;

import static dev.leasehold.store.etcd.EtcdKeys.array;
import static dev.leasehold.store.etcd.EtcdKeys.b64;
import static dev.leasehold.store.etcd.EtcdKeys.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * History as one key per record under {@code <prefix>history/<job>/}: the {@code limit} records
 * written last (by revision), newest first by start time. Retention is bounded per job: the write
 * and a count of the job's records go in one transaction, and when the count passes {@code
 * history-max} the oldest keys (their names begin with the recording time) are deleted with one
 * range delete.
 */
final class EtcdExecutionLog implements ExecutionLog {
  static final long DEFAULT_MAX_PER_JOB = 1000;

  private final EtcdClient client;
  private final EtcdKeys keys;
  private final long maxPerJob;
  private final Clock clock;

  EtcdExecutionLog(EtcdClient client, EtcdKeys keys, long maxPerJob, Clock clock) {
    this.client = client;
    this.keys = keys;
    this.maxPerJob = maxPerJob;
    this.clock = clock;
  }

  @Override
  public void record(ExecutionRecord record) {
    String prefix = keys.history(record.job());
    String key =
        prefix
            + EtcdKeys.encodeFiring(clock.instant())
            + "-"
            + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    ObjectNode count =
        EtcdClient.object().set("request_range", under(prefix).put("count_only", true));
    ObjectNode request =
        EtcdKeys.txn(array(), array(EtcdKeys.put(key, toJson(record), 0), count), array());
    long stored =
        client
            .call("/v3/kv/txn", request)
            .path("responses")
            .path(1)
            .path("response_range")
            .path("count")
            .asLong();
    if (stored > maxPerJob) {
      deleteOldest(prefix, EtcdKeys.rangeEnd(prefix), stored - maxPerJob);
    }
  }

  /** The body of a range of every key starting with {@code prefix}. */
  private static ObjectNode under(String prefix) {
    return EtcdKeys.prefixRange(prefix, prefix);
  }

  /**
   * Job by job (each found with one range of limit 1 past the previous job's keys): the keys
   * written before the cutoff (key names begin with the writer's clock at the write), then the
   * oldest beyond {@code max-per-job}, each a bounded range of key names and one range delete up to
   * the last of them.
   */
  @Override
  public int prune(HistoryRetention retention, Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    String all = keys.history();
    String cutoff = EtcdKeys.encodeFiring(retention.cutoff(now));
    long removed = 0;
    String from = all;
    while (removed < limit) {
      ObjectNode next = EtcdKeys.prefixRange(from, all).put("keys_only", true).put("limit", 1);
      JsonNode kvs = client.call("/v3/kv/range", next).path("kvs");
      if (kvs.isEmpty()) {
        break;
      }
      String key = text(kvs.get(0).get("key"));
      int slash = key.indexOf('/', all.length());
      if (slash < 0) {
        break; // not a record key: nothing of ours lies past it
      }
      String prefix = key.substring(0, slash + 1);
      removed += deleteOldest(prefix, b64(prefix + cutoff), limit - removed);
      long excess = Math.min(count(prefix) - retention.maxPerJob(), limit - removed);
      if (excess > 0) {
        removed += deleteOldest(prefix, EtcdKeys.rangeEnd(prefix), excess);
      }
      from = prefix.substring(0, prefix.length() - 1) + "0"; // just past every key of this job
    }
    return (int) removed;
  }

  private long count(String prefix) {
    return client
        .call("/v3/kv/range", under(prefix).put("count_only", true))
        .path("count")
        .asLong();
  }

  /** Deletes at most {@code max} of the oldest keys in {@code [prefix, end)}; returns how many. */
  private long deleteOldest(String prefix, String end, long max) {
    ObjectNode oldest =
        EtcdKeys.keyRange(prefix)
            .put("range_end", end)
            .put("keys_only", true)
            .put("sort_order", "ASCEND")
            .put("sort_target", "KEY")
            .put("limit", max);
    JsonNode kvs = client.call("/v3/kv/range", oldest).path("kvs");
    if (kvs.isEmpty()) {
      return 0;
    }
    String last = text(kvs.get(kvs.size() - 1).get("key"));
    ObjectNode delete = EtcdKeys.keyRange(prefix).put("range_end", b64(last + "\0"));
    return client.call("/v3/kv/deleterange", delete).path("deleted").asLong();
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    String prefix = job == null ? keys.history() : keys.history(LeaseNames.require(job));
    ObjectNode request =
        under(prefix).put("sort_order", "DESCEND").put("sort_target", "MOD").put("limit", limit);
    List<ExecutionRecord> records = new ArrayList<>();
    for (JsonNode kv : client.call("/v3/kv/range", request).path("kvs")) {
      records.add(fromJson(text(kv.get("value"))));
    }
    // the latest written, newest first by when the run started, as every store orders history
    // (a stable sort: records that started in the same millisecond stay newest-written first)
    records.sort(java.util.Comparator.comparing(ExecutionRecord::startedAt).reversed());
    return records;
  }

  private static String toJson(ExecutionRecord r) {
    ObjectNode json =
        EtcdClient.object()
            .put("job", r.job())
            .put("fireTime", r.fireTime().toString())
            .put("node", r.node())
            .put("fence", r.fence())
            .put("trigger", r.trigger().name())
            .put("startedAt", r.startedAt().toString())
            .put("finishedAt", r.finishedAt().toString())
            .put("outcome", r.outcome().name());
    if (r.exitCode() != null) {
      json.put("exitCode", r.exitCode());
    }
    if (r.detail() != null) {
      json.put("detail", r.detail());
    }
    if (r.output() != null) {
      json.put("output", r.output());
    }
    if (r.attempt() != 1) {
      json.put("attempt", r.attempt());
    }
    return json.toString();
  }

  private static ExecutionRecord fromJson(String text) {
    try {
      JsonNode j = EtcdClient.JSON.readTree(text);
      return new ExecutionRecord(
          j.path("job").asText(),
          Instant.parse(j.path("fireTime").asText()),
          j.path("node").asText(),
          j.path("fence").asLong(),
          TriggerKind.valueOf(j.path("trigger").asText()),
          Instant.parse(j.path("startedAt").asText()),
          Instant.parse(j.path("finishedAt").asText()),
          Outcome.valueOf(j.path("outcome").asText()),
          j.hasNonNull("exitCode") ? j.get("exitCode").asInt() : null,
          j.hasNonNull("detail") ? j.get("detail").asText() : null,
          j.hasNonNull("output") ? j.get("output").asText() : null,
          j.hasNonNull("attempt") ? j.get("attempt").asInt() : 1);
    } catch (java.io.IOException | RuntimeException e) {
      throw new LeaseStoreException("unreadable history record in etcd: " + e.getMessage(), e);
    }
  }
}
