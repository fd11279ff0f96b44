package dev.leasehold.store.etcd;

import static dev.leasehold.store.etcd.EtcdKeys.array;
import static dev.leasehold.store.etcd.EtcdKeys.b64;
import static dev.leasehold.store.etcd.EtcdKeys.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
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
        EtcdClient.object()
            .set(
                "request_range",
                EtcdClient.object()
                    .put("key", b64(prefix))
                    .put("range_end", EtcdKeys.rangeEnd(prefix))
                    .put("count_only", true));
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
      trim(prefix, stored - maxPerJob);
    }
  }

  /** Deletes the {@code excess} oldest records of one job. */
  private void trim(String prefix, long excess) {
    ObjectNode oldest =
        EtcdClient.object()
            .put("key", b64(prefix))
            .put("range_end", EtcdKeys.rangeEnd(prefix))
            .put("keys_only", true)
            .put("sort_order", "ASCEND")
            .put("sort_target", "KEY")
            .put("limit", excess);
    JsonNode kvs = client.call("/v3/kv/range", oldest).path("kvs");
    if (kvs.isEmpty()) {
      return;
    }
    String last = text(kvs.get(kvs.size() - 1).get("key"));
    ObjectNode delete =
        EtcdClient.object().put("key", b64(prefix)).put("range_end", b64(last + "\0"));
    client.call("/v3/kv/deleterange", delete);
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    String prefix = job == null ? keys.history() : keys.history(LeaseNames.require(job));
    ObjectNode request =
        EtcdClient.object()
            .put("key", b64(prefix))
            .put("range_end", EtcdKeys.rangeEnd(prefix))
            .put("sort_order", "DESCEND")
            .put("sort_target", "MOD")
            .put("limit", limit);
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
          j.hasNonNull("detail") ? j.get("detail").asText() : null);
    } catch (java.io.IOException | RuntimeException e) {
      throw new LeaseStoreException("unreadable history record in etcd: " + e.getMessage(), e);
    }
  }
}
